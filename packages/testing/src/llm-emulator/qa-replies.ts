/**
 * The emulator's answers to `memfade eval`'s QA calls, derived only from what the request holds,
 * so a test can work out the accuracy by hand:
 * - answer: the sentence of the memory sharing the most words with the question (at least two;
 *   Chinese: two-character words), else a decline;
 * - judge: correct when the normalised gold answer is contained in the normalised answer.
 *   (Declined answers never reach the judge: `memfade eval` scores them itself.)
 */

export const QA_TOOLS = { answer: 'record_answer', judge: 'record_judgement' } as const;
export type QaTool = 'answer' | 'judge';

const MEMORY_BLOCK = /<memory>\n([\s\S]*)\n<\/memory>/;
const tag = (text: string, name: string) =>
  text.match(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`))?.[1] ?? '';

/** Lower case, without whitespace and punctuation: "7 May, 2023" and "7 may 2023" match. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[\p{P}\p{S}\p{Z}\s]+/gu, '');
}

const STOP_WORDS = new Set(
  'the and did does what when where who whom which why how was were has have had for with from that this about her his their they she him you your are its into'.split(
    ' ',
  ),
);

/** The words of a text as the emulator compares them: Latin words of 3+ letters, Han bigrams. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []) if (!STOP_WORDS.has(w)) out.add(w);
  for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return out;
}

function sentences(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.match(/[^。！？!?.；;]+[。！？!?.；;]*/gu) ?? [])
    .map((s) => s.trim())
    .filter(Boolean);
}

export const DECLINE = 'I cannot tell';

export function answerFields(system: string, user: string): Record<string, unknown> {
  const memory = system.match(MEMORY_BLOCK)?.[1] ?? '';
  const asked = words(tag(user, 'question'));
  let best = '';
  let bestShared = 1; // at least two shared words make an answer
  for (const sentence of sentences(memory)) {
    const own = words(sentence);
    const shared = [...asked].filter((w) => own.has(w)).length;
    if (shared > bestShared) {
      best = sentence;
      bestShared = shared;
    }
  }
  return best ? { answer: best, declined: false } : { answer: DECLINE, declined: true };
}

export function judgeFields(user: string): Record<string, unknown> {
  const gold = normalise(tag(user, 'gold'));
  const answer = tag(user, 'answer');
  const correct = gold !== '' && normalise(answer).includes(gold);
  return { correct, reason: correct ? 'the answer contains the gold answer' : 'the gold answer is missing' };
}

export function qaFields(tool: QaTool, system: string, user: string): Record<string, unknown> {
  return tool === 'answer' ? answerFields(system, user) : judgeFields(user);
}

export function qaTool(name: string | undefined): QaTool | undefined {
  return name === QA_TOOLS.answer ? 'answer' : name === QA_TOOLS.judge ? 'judge' : undefined;
}
