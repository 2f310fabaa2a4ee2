import { isFirstPerson, keysOf, type Reading, unlabelled } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/** Ends with a question mark, or with 吗 (呢 and 嘛 end statements too: "我也会有点紧张呢。"). */
const QUESTION = /(?:[?？]|吗[。.]?)[”’」』"')）]*$/u;
export const isQuestion = (sentence: string) => QUESTION.test(sentence.trim());

/**
 * A question reported ("你问恭王府门票多少钱", "Jon asked whether you like it"): a question still
 * (issue 36, deliver 4), its mark stripped. Not 问题 / 问候 / 学问, nor "asked you to" (a request).
 */
const REPORTED_ZH = /(?<![学访疑顾询审追拷质反提慰]|不敢|没|不|别)问(?![题候世津])/u; // "你不敢问，怕…" asks nothing
const REPORTED_EN = /\b(?:asked|wondered)\b(?! (?:\w+ )?(?:to|for)\b)/i;
export const isReportedQuestion = (sentence: string) =>
  REPORTED_ZH.test(sentence) || REPORTED_EN.test(sentence) || UNMARKED_ZH.test(sentence);

/**
 * A Chinese question with neither its mark nor a 问 ("你有没有什么好的电影推荐给姚国栋。": a stage kept the second half
 * of "姚国栋问除了这些，你有没有…"): 你 opening on an A-not-A verb, after who said it. "你担心是不是…" tells a worry.
 */
const UNMARKED_ZH =
  /^(?:[^，。！？“”\s]{1,8}?说[：:]?)?(?:那么?)?(?:你|您)(?:们)?(?:还|到底)?(?:有没有|要不要|能不能|会不会|可不可以|是不是|想不想|喜不喜欢|知不知道)/u;

/**
 * A copied question: the stage keeps a question as it was asked ("What's up with you?") instead
 * of the concern behind it.
 */
export function question(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined) return undefined;
  const asked = reading.split(text).filter((s) => isQuestion(s) || isReportedQuestion(s));
  return {
    measure: 'question',
    stage,
    ok: asked.length === 0,
    ...(asked.length && { severity: asked.length, quote: clip(unlabelled(reading, asked[0]!)) }),
  };
}

/** Words a question is made of that say nothing of its content. */
const ASKING = new Set(
  `what why how when where who which whom whose does did do are is was were can could would should will you your yours have has had the and that this with for about any anything something there here they them then than just really doing going been being from into some isn aren don didn doesn wasn weren won isn't aren't don't didn't doesn't wasn't weren't can't won't what’s what's how’s how's`.split(
    ' ',
  ),
);
const ASKING_ZH =
  /什么|怎么|为什么|吗|呢|知道|你|哪|谁|多少|几|是不|有没|会不|能不|可以|要不|觉得|请问|那么|这个|那个|一下/u;

/** A question's content keys: words or character pairs that are not the asking itself. */
function contentKeys(question: string): string[] {
  return [...keysOf(question)].filter((key) => !ASKING.has(key) && !ASKING_ZH.test(key));
}

/**
 * The user's questions about their own life (at most the first five), with their content keys:
 * a question with "I", "me", "my" or 我 ("Why isn't Jimmy paying attention to me?"); a question
 * about the other ("What about you?", "知道保利剧院吗？") is conversation, not a concern.
 */
function userQuestions(reading: Reading): { text: string; keys: string[] }[] {
  return reading.raw
    .filter((s) => reading.turns[s.turn]!.user && isQuestion(s.text) && isFirstPerson(s.text))
    .map((s) => ({ text: s.text, keys: contentKeys(s.text) }))
    .filter((q) => q.keys.length >= 2)
    .slice(0, 5);
}

/**
 * The user's concern kept: a question the user asked ("Why isn't Jimmy paying attention to me
 * anymore?") survives as a statement holding at least half of its content words. Applies when
 * the user asked a question with content; passes when at least half of them survive.
 */
export function concern(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined) return undefined;
  const asked = userQuestions(reading);
  if (asked.length === 0) return undefined;
  const statements = reading
    .split(text)
    .filter((s) => !isQuestion(s))
    .map((s) => keysOf(s));
  const lost = asked.filter(
    (q) => !statements.some((keys) => q.keys.filter((k) => keys.has(k)).length * 2 >= q.keys.length),
  );
  const ok = lost.length * 2 <= asked.length;
  return {
    measure: 'concern',
    stage,
    ok,
    ...(!ok && {
      severity: lost.length,
      quote: clip(lost[0]!.text),
      note: `${asked.length - lost.length} of ${asked.length} of the user's questions kept as a statement`,
    }),
  };
}
