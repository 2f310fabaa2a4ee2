import { normalise } from '@memfade/core';
import type { Reading } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/**
 * The topic entity named: a conversation the set says is about something (KdConv `name`, a
 * JSONL `topic`) names it in the stage, not only "它" or "the place".
 */
export function topic(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  const entity = reading.view.topic;
  if (text === undefined || !entity) return undefined;
  const ok = normalise(text).includes(normalise(entity));
  return {
    measure: 'topic',
    stage,
    ok,
    ...(!ok && { quote: clip(text, 100), note: `does not name ${entity}` }),
  };
}

/**
 * The speakers named: where the speakers have names (LoCoMo's Caroline and Melanie, not
 * user/assistant), each one is named in the stage (a label counts here; labels are counted apart).
 */
export function speakers(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined || reading.names.length === 0) return undefined;
  const lower = text.toLowerCase();
  const missing = reading.names.filter((name) => !lower.includes(name.toLowerCase()));
  return {
    measure: 'speakers',
    stage,
    ok: missing.length === 0,
    ...(missing.length && {
      severity: missing.length,
      quote: clip(text, 100),
      note: `does not name ${missing.join(', ')}`,
    }),
  };
}
