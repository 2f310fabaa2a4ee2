import { attributed, firstLabel, isFirstPersonSingular, type Reading, sourceTurn } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/**
 * Speaker fusion: first-person singular sentences ("I", 我; "we" is both) of two speakers in one stretch of text with nothing
 * saying who is speaking (no label, no name, no "我说" / "you told me"), so the two "I"s read as
 * one person ("下个月要结婚了" from the friend reads as the user's wedding). Where a sentence came
 * from is found in the raw turns; a sentence found in none (reworded) is not counted.
 */
export function fusion(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined || reading.speakers.length < 2) return undefined;
  // A label attributes everything after it: only the text before the first label can fuse.
  const label = firstLabel(reading, text);
  const open = label < 0 ? text : text.slice(0, label);
  const bySpeaker = new Map<string, string[]>();
  for (const sentence of reading.split(open)) {
    if (!isFirstPersonSingular(sentence) || attributed(reading, sentence)) continue;
    const turn = sourceTurn(reading, sentence);
    if (turn === undefined) continue;
    const role = reading.turns[turn]!.role;
    bySpeaker.set(role, [...(bySpeaker.get(role) ?? []), sentence]);
  }
  if (bySpeaker.size < 2) return { measure: 'fusion', stage, ok: true };
  const [first, second] = [...bySpeaker.values()].sort((a, b) => b.length - a.length);
  return {
    measure: 'fusion',
    stage,
    ok: false,
    severity: second!.length,
    quote: `${clip(first![0]!, 80)} … ${clip(second![0]!, 80)}`,
    note: `first-person sentences of ${bySpeaker.size} speakers without attribution`,
  };
}
