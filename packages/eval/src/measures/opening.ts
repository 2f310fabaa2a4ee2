import { normalise } from '@memfade/core';
import { type Reading, unlabelled } from './reading.js';
import { clip, type Finding } from './types.js';

/**
 * Key point 1 is the opening sentence: the first thing said ("Hey Mel! Good to see you!") is
 * rarely the most important, so a first key point that repeats it ranked by position, not worth.
 */
export function opening(reading: Reading): Finding | undefined {
  const first = reading.view.v1?.keyPoints[0];
  const opener = reading.raw[0];
  if (!first || !opener || [...opener.norm].length < 4) return undefined;
  const point = normalise(unlabelled(reading, first));
  const ok = !(point.length >= 4 && (opener.norm.includes(point) || point.includes(opener.norm)));
  return { measure: 'opening', stage: 'v1', ok, ...(!ok && { quote: clip(first) }) };
}
