import { chineseScript } from './chinese-script.js';
import type { Language } from './memory.js';
import type { StagePolicy } from './stage-policy.js';
import { detectLanguage, inBothLanguages, measureLength } from './text.js';
import { unsupportedLanguage } from './written-in.js';

/**
 * What is wrong with a stage's output, measured by the worker (the model's own claims are
 * ignored). Structured, so each reader says it its own way: the pipeline records English for the
 * operator, a repair call tells the model in the memory's language.
 */
export type OutputFinding =
  | { kind: 'empty' }
  | { kind: 'wrong_language'; expected: Language }
  | { kind: 'wrong_script'; expected: 'simplified' | 'traditional' }
  | { kind: 'out_of_range'; length: number; target: { min: number; max: number } };

/** Empty output, the wrong language or script fail whatever the settings; a length out of range depends on OUT_OF_RANGE. */
export const isFatal = (finding: OutputFinding): boolean => finding.kind !== 'out_of_range';

/**
 * The one output check, for sync replies, repairs and batch results alike. `source`: the text the
 * stage is written from; Chinese written in traditional characters stays in them (chinese-script.ts).
 */
export function checkOutput(
  text: string,
  target: { min: number; max: number },
  language: Language,
  source: string,
  names: (string | undefined)[] = [],
): { length: number; findings: OutputFinding[] } {
  const length = measureLength(text);
  const findings: OutputFinding[] = [];
  // Read without the role card's names: an English memory of a user named 欧阳娜娜 says her name in
  // every line, and is English still ("欧阳娜娜 said 欧阳娜娜 is happy today" was refused every night).
  const words = withoutNames(text, names);
  if (length === 0) findings.push({ kind: 'empty' });
  // Neither the other language nor a third one: Spanish reads as English and Japanese as Chinese
  // to detectLanguage, and a model (or a role card's words) may write either (written-in.ts).
  else if (
    (detectLanguage(words) !== language && !bilingual(withoutNames(source, names))) ||
    unsupportedLanguage(words)
  )
    findings.push({ kind: 'wrong_language', expected: language });
  else if (language === 'zh') {
    // Only a clear change of script fails: from a memory in one script (a chat whose speakers write
    // in both is none: its stage may be either's) to a stage clearly in the other.
    const [from, to] = [chineseScript(source, 10), chineseScript(text)];
    if (from !== 'unclear' && to !== 'unclear' && from !== to)
      findings.push({ kind: 'wrong_script', expected: from });
  }
  if (length < target.min || length > target.max) findings.push({ kind: 'out_of_range', length, target });
  return { length, findings };
}

/**
 * A chat whose speakers write both languages (a user writing English to a companion answering in Chinese):
 * a stage that keeps each one's words as said is in either, and is not refused for it, every night. Wider
 * than the band a compressor writes both in (text.ts inBothLanguages), so one near its edge passes.
 */
const bilingual = (source: string) => inBothLanguages(source, GATE_EDGE);
const GATE_EDGE = 0.1;

/** The text with each name blanked out, unless nothing else is left to read. */
function withoutNames(text: string, names: (string | undefined)[]): string {
  let rest = text;
  for (const name of names) if (name?.trim()) rest = rest.split(name.trim()).join(' ');
  return /[\p{L}\p{N}]/u.test(rest) ? rest : text;
}

/** A finding as the operator reads it (recorded on the memory and in the run). */
export function describeFinding(finding: OutputFinding, originalLength: number): string {
  switch (finding.kind) {
    case 'empty':
      return 'the compressed text is empty';
    case 'wrong_language':
      return `the memory is in ${finding.expected} but the compressed text is not`;
    case 'wrong_script':
      return `the memory is in ${finding.expected} Chinese characters but the compressed text is not`;
    case 'out_of_range':
      return `length ${finding.length} is outside the target ${finding.target.min}-${finding.target.max} (input ${originalLength})`;
  }
}

/**
 * V1's range: its share of the input (V1_RATIO), never more than the absolute ceiling (v1MaxChars):
 * a 75,000-character memory gets a V1 of at most 6,000 by default, not 37,000. Under the ceiling
 * the range keeps its proportions (0.3 / 0.5 of it at the least).
 */
export function v1Target(inputLength: number, policy: StagePolicy): { min: number; max: number } {
  const { v1MaxChars } = policy;
  const max = Math.min(Math.floor(inputLength * policy.v1Ratio.max), v1MaxChars);
  const floor = Math.floor((v1MaxChars * policy.v1Ratio.min) / policy.v1Ratio.max);
  return { min: Math.min(Math.ceil(inputLength * policy.v1Ratio.min), floor), max };
}
