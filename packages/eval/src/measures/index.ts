import { identical, notShorter } from './copies.js';
import { emotionalCore } from './core.js';
import { emotion } from './emotion.js';
import { fusion } from './fusion.js';
import { invented } from './invented.js';
import { labels } from './labels.js';
import { length } from './lengths.js';
import { opening } from './opening.js';
import { orphans } from './orphans.js';
import { concern, question } from './questions.js';
import { read } from './reading.js';
import { speakers, topic } from './subject.js';
import { time } from './time.js';
import type { Finding, MemoryView } from './types.js';
import { userShare } from './user-share.js';

export { type Finding, MEASURES, type MeasureName, type MeasureStage, type MemoryView } from './types.js';

const PER_STAGE = [
  invented,
  labels,
  fusion,
  question,
  concern,
  topic,
  speakers,
  orphans,
  length,
  time,
  userShare,
  emotionalCore,
] as const;

/** Every measure of what a reader sees, on V1 and V2 of one memory; a measure that does not apply is absent. */
export function measureMemory(view: MemoryView): Finding[] {
  const reading = read(view);
  const findings: (Finding | undefined)[] = [];
  for (const stage of ['v1', 'v2'] as const) {
    if (!view[stage]) continue;
    for (const measure of PER_STAGE) findings.push(measure(reading, stage));
  }
  findings.push(identical(reading), notShorter(reading), emotion(reading), opening(reading));
  return findings.filter((f): f is Finding => f !== undefined);
}
