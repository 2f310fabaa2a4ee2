import { inventedSpans } from '@memfade/core';
import type { Reading } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/**
 * Words nobody said (issue 36, deliver 1): spans of the stage's text that no turn of the speaker
 * it is attributed to holds, in order, outside the frame (core faithfulness.ts, the check the
 * offline compressor's gate runs). Quoted, all of them, so a reader sees what was invented.
 */
export function invented(reading: Reading, stage: MeasureStage): Finding | undefined {
  const { view } = reading;
  const text = view[stage]?.text;
  if (text === undefined) return undefined;
  const spans = inventedSpans(text, {
    language: view.language,
    turns: view.turns.map((t) => ({ role: t.role, text: t.text })),
    names: view.knownNames ?? [],
    userRole: view.userRole,
  });
  return {
    measure: 'invented',
    stage,
    ok: spans.length === 0,
    ...(spans.length && {
      severity: spans.length,
      quote: clip(spans.map((s) => `“${s}”`).join(' ')),
      note: `${spans.length} span${spans.length === 1 ? '' : 's'} nobody said`,
    }),
  };
}
