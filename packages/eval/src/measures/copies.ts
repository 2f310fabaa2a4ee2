import { measureLength, normalise } from '@memfade/core';
import type { Reading } from './reading.js';
import { clip, type Finding } from './types.js';

/** V2 identical to V1: the core memory is V1's text again (the same words, spacing and punctuation aside). */
export function identical(reading: Reading): Finding | undefined {
  const { v1, v2 } = reading.view;
  if (!v1 || !v2) return undefined;
  const ok = normalise(v1.text) !== normalise(v2.text);
  return { measure: 'identical', stage: 'v2', ok, ...(!ok && { quote: clip(v2.text, 100) }) };
}

/** V2 not shorter than V1: a core memory is always shorter than the memory it condenses. */
export function notShorter(reading: Reading): Finding | undefined {
  const { v1, v2 } = reading.view;
  if (!v1 || !v2) return undefined;
  const [l1, l2] = [measureLength(v1.text), measureLength(v2.text)];
  const ok = l2 < l1;
  return {
    measure: 'notShorter',
    stage: 'v2',
    ok,
    ...(!ok && { quote: clip(v2.text, 100), note: `V2 ${l2} characters, V1 ${l1}` }),
  };
}
