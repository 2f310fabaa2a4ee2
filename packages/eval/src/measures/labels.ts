import { labelsIn, type Reading } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/** The pieces of a stage a reader sees: its text and its lists (key points, core points, residue). */
export function piecesOf(reading: Reading, stage: MeasureStage): string[] {
  const { v1, v2 } = reading.view;
  if (stage === 'v1') return v1 ? [v1.text, ...v1.keyPoints, ...v1.highlights] : [];
  return v2 ? [v2.text, ...v2.points, v2.residue.summary].filter(Boolean) : [];
}

/**
 * Role-label leakage: a speaker label ("user:", "assistant:", "用户：", "Caroline:") inside a
 * stage's text or lists. A memory says who said what in words, never as a transcript.
 */
export function labels(reading: Reading, stage: MeasureStage): Finding | undefined {
  const pieces = piecesOf(reading, stage);
  if (pieces.length === 0) return undefined;
  let count = 0;
  let quote: string | undefined;
  for (const piece of pieces) {
    for (const m of labelsIn(reading, piece)) {
      count++;
      quote ??= piece.slice(m.index ?? 0, (m.index ?? 0) + 80);
    }
  }
  return {
    measure: 'labels',
    stage,
    ok: count === 0,
    ...(count && {
      severity: count,
      quote: clip(quote!),
      note: `${count} speaker label${count === 1 ? '' : 's'}`,
    }),
  };
}
