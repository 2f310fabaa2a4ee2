import type { Language } from './memory.js';
import type { StagePolicy } from './stage-policy.js';
import { detectLanguage } from './text.js';

/** Quality findings on a model's output, measured by the worker; the model's own claims are ignored. */
export interface GateFindings {
  /** Problems no setting can accept (empty output, wrong language). */
  fatal: string[];
  /** Out-of-target lengths: a warning or a failure depending on policy.outOfRange. */
  outOfRange: string[];
}

export function checkOutput(
  output: string,
  measured: { originalLength: number; compressedLength: number },
  target: { min: number; max: number },
  language: Language,
): GateFindings {
  const fatal: string[] = [];
  const outOfRange: string[] = [];
  if (measured.compressedLength === 0) fatal.push('the compressed text is empty');
  else if (detectLanguage(output) !== language) {
    fatal.push(`the memory is in ${language} but the compressed text is not`);
  }
  if (measured.compressedLength < target.min || measured.compressedLength > target.max) {
    outOfRange.push(
      `length ${measured.compressedLength} is outside the target ${target.min}-${target.max} (input ${measured.originalLength})`,
    );
  }
  return { fatal, outOfRange };
}

export function v1Target(inputLength: number, policy: StagePolicy): { min: number; max: number } {
  return {
    min: Math.ceil(inputLength * policy.v1Ratio.min),
    max: Math.floor(inputLength * policy.v1Ratio.max),
  };
}
