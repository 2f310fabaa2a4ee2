import { measureLength } from '@memfade/core';
import type { Reading } from './reading.js';
import type { Finding, MeasureStage } from './types.js';

/**
 * Length against the configured range, not the pipeline's capped one: V1 within its share of
 * the input (V1_RATIO), V2 within the language's range (V2 length). Applies to memories whose raw
 * text is at least the minimum input length; a memory carried unchanged below it is not judged.
 */
export function length(reading: Reading, stage: MeasureStage): Finding | undefined {
  const { view } = reading;
  const result = view[stage];
  if (!result || reading.rawLength < view.minInputChars) return undefined;
  const actual = measureLength(result.text);
  const target =
    stage === 'v1'
      ? {
          min: Math.ceil(result.inputLength * view.targets.v1Ratio.min),
          max: Math.floor(result.inputLength * view.targets.v1Ratio.max),
        }
      : view.targets.v2Length;
  const status = actual < target.min ? 'below' : actual > target.max ? 'above' : 'within';
  const ok = status === 'within';
  return {
    measure: 'length',
    stage,
    ok,
    ...(!ok && {
      severity: Math.abs(actual - (status === 'below' ? target.min : target.max)),
      note: `${status}: ${actual} characters, target ${target.min}-${target.max}`,
    }),
  };
}
