import type { Language } from '@memfade/core';
import { emotionsIn, POSITIVE } from './lexicon.js';

/**
 * A question as the concern behind it (docs/design.md §6): what was asked, said as a statement in
 * the memory's voice, with its condition kept ("你担心如果考不好，妈妈会不高兴", "You wondered why
 * Jimmy isn't paying attention to you anymore"). The frame says whose question it was.
 */

/**
 * A question's end: a question mark; or, in chat written without punctuation, 吗 / 么, a question
 * word closing the clause ("布玛怎么办"), or 什么 / 哪个 and the word they ask for ("你喜欢看什么剧",
 * "它叫什么名字"; not "没什么事", "什么都行", "画画什么的", "我不知道该怎么办").
 */
export const QUESTION_END =
  /(?:[?？]|(?<![要那怎什])[吗么]|(?<!不知道.{0,4})(?:(?:什么|多少|几个|哪里|哪儿|怎么样|怎么办|为什么|是谁|好不好|行不行|对不对|是不是|可不可以)[呀啊呢]?|(?<!没|没有|不)(?:什么|哪个|哪些|哪种|哪家|哪位)(?![都也的])\p{Script=Han}{1,2}[呀啊呢]?))[”’」』）)"']*$/u;
/** What ends a question without being part of what was asked: its mark, a final particle (not 什么's 么). */
const ASKING_END = /(?:[?？]+[”’」』）)"']*|(?<![什怎那要多这])[吗么呢吧呀啊嘛]+)$/u;
/** A question that asks for something (什么, 哪, 谁…): it is about no "X" to be asked about. */
const ASKS_FOR = /什么|哪|谁|怎么|多少|几/u;

/**
 * What makes a question a worry, beyond a painful feeling: a feared outcome ("如果我考不好…会不会",
 * "what if"), a doubt about oneself ("是不是我太胖了", "should I", "am I"), a "why" about one's own
 * life. A traveller's "为什么叫这个名字" or "如果去那里玩…" is curiosity, not a worry.
 */
const ZH_CONCERN = [
  /怎么办|该不该|是不是我|会不会.*我|我.*会不会/u,
  /(?:如果|要是|万一|假如).*(?:不|没|坏|差|失败|生病|生气|怪)/u,
  /为什么.*我|我.*为什么/u,
];
const EN_CONCERN =
  /\b(?:what if|should i|am i|is it normal|why (?:isn't|doesn't|don't|won't|can't|didn't|wasn't|aren't)|if i (?:fail|lose|don't|can't|mess))\b/i;

/** What a user's question about their own life ("Any book for me?", "我该怎么办？") adds to its worth: what they needed. */
export const CONCERN_BONUS = 5;

/** A question that carries a worry: a painful feeling, a feared outcome, a doubt about oneself. */
export function isConcern(text: string, language: Language): boolean {
  if (emotionsIn(text, language).some((e) => !POSITIVE.has(e))) return true;
  return language === 'zh' ? ZH_CONCERN.some((p) => p.test(text)) : EN_CONCERN.test(text);
}

const ZH_ABOUT = /^(?:你|您)?(?:知道|听说过|听过|了解|认识|看过|去过|玩过|读过|吃过|喜欢)(.{2,})$/u;
/** "你对正乙祠戏楼有了解吗": asked about 正乙祠戏楼. */
const ZH_KNOWN_ABOUT = /^(?:你|您)?对(.{2,20}?)(?:有|很|比较)?(?:了解|兴趣|研究|熟悉)$/u;

/** A Chinese question as a statement of what was asked: its frame (问 / 问起 / 担心) and its content. */
export function reportZh(question: string, concern: boolean): { frame: string; content: string } {
  let q = question
    .replace(/[。.，,、；;]+$/u, '')
    .replace(ASKING_END, '')
    .replace(ASKING_END, '')
    .replace(/^(?:嗯+|哦+|噢|啊|对了|请问|好的|哈哈+)[，,\s]*/u, '')
    .replace(/^(?:你说|你觉得|你看)[，,\s]*/u, '')
    // "那它…", "那么，…": a discourse particle; "那只小狗" keeps its 那.
    .replace(/^那么?(?:[，,\s]+|(?=[它你我他她]))/u, '')
    .replace(/(?:你|您)(?:知道|清楚|了解|晓得)$/u, '')
    .replace(/[，,\s]+$/u, '')
    .trim();
  // A worry of the asker's that says so already ("我还担心…") needs no frame of its own; one asked
  // of the other ("你害怕吗？") is a question still: framed, it cannot read as "小暖你害怕" (issue 36).
  if (/^(?![你您]).{0,3}?(?:担心|害怕|怕|好奇|想知道|不知道)/u.test(q)) return { frame: '', content: q };
  if (concern)
    return q.startsWith('为什么') ? { frame: '不明白', content: q } : { frame: '担心', content: q };
  const about = ASKS_FOR.test(q) ? null : (q.match(ZH_ABOUT) ?? q.match(ZH_KNOWN_ABOUT));
  if (about) return { frame: '问起', content: about[1]!.replace(/^(?:一下|下)/u, '') };
  // "（你）知道X在哪": what was asked is where X is.
  q = q.replace(/^(?:你|您)?(?:知道|了解)(?=.{2})/u, '');
  return { frame: '问', content: q };
}

const AUX =
  "am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|shall|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|haven't|hasn't|can't|couldn't|won't|wouldn't|shouldn't";
const EN_WH = new RegExp(
  `^(what|why|how(?: \\w+)?|when|where|who|which(?: \\w+)?|whose)\\s+(${AUX})\\s+(\\S+)\\s*(.*)$`,
  'i',
);
const EN_WH_BE = /^(what|who|where|which(?: \w+)?|how(?: \w+)?)\s+(is|are|was|were)\s+(.+)$/i;
const EN_YES_NO = new RegExp(`^(${AUX})\\s+(\\S+)\\s*(.*)$`, 'i');
const PRONOUN = /^(?:i|you|he|she|it|we|they)$/i;
/** A question's subject: a pronoun or a name ("Jimmy"), never another word ("What has changed…"). */
const subjectWord = (word: string) => PRONOUN.test(word) || /^[A-Z][\w'-]*$/.test(word);

/** The auxiliary as indirect speech keeps it: "do" / "does" only made the question ("what you think"). */
const plain = (aux: string) => (/^(?:do|does)$/i.test(aux) ? '' : aux.toLowerCase());

/** An English question as indirect speech: "Why isn't Jimmy…?" → "why Jimmy isn't…". */
export function reportEn(question: string, concern: boolean): { frame: string; content: string } {
  const q = question
    .replace(QUESTION_END, '')
    .replace(/^(?:so|well|oh|hey|and|but|um|hmm|also|btw|anyway)[,\s]+/i, '')
    .trim();
  const subject = (s: string) => (PRONOUN.test(s) && s !== 'I' ? s.toLowerCase() : s);
  const whatIf = q.match(/^what if\s+(.+)$/i);
  if (whatIf) return { frame: 'worried that', content: whatIf[1]! };
  const wh = q.match(EN_WH);
  if (wh && subjectWord(wh[3]!)) {
    const [, w, aux, who, rest] = wh;
    return {
      frame: 'wondered',
      content: [w!.toLowerCase(), subject(who!), plain(aux!), rest].filter(Boolean).join(' ').trim(),
    };
  }
  const be = q.match(EN_WH_BE);
  if (be) return { frame: 'wondered', content: `${be[1]!.toLowerCase()} ${be[3]} ${be[2]!.toLowerCase()}` };
  if (wh) return { frame: 'wondered', content: q.charAt(0).toLowerCase() + q.slice(1) };
  const yesNo = q.match(EN_YES_NO);
  if (yesNo && subjectWord(yesNo[2]!)) {
    const [, aux, who, rest] = yesNo;
    const content = ['whether', subject(who!), plain(aux!), rest].filter(Boolean).join(' ').trim();
    return { frame: concern ? 'worried' : 'asked', content };
  }
  return {
    frame: concern ? 'worried about' : 'asked about',
    content: q.charAt(0).toLowerCase() + q.slice(1),
  };
}

/**
 * A question V1 reported with its mark gone ("你问门票不贵", "Mia asked about…"), and who asked
 * it. A core memory keeps what was told: a question without its mark reads as a statement nobody
 * made (issue 36), and what answered it leans on it and goes with it. Only a worry the user asked
 * stays ("你问如果考不好怎么办": what they needed); the companion's questions never do. (Keeping
 * the user's other questions about themselves too was tried: 12-31% of check-half V2s then held a
 * question, most of them requests that read badly reported: "Lucy asked whether you can give Lucy
 * some advice.")
 */
const REPORTED_QUESTION = {
  zh: /(?:^|，)([^，。！？\s]{1,8}?)问(?:起)?(?![题候])/u,
  en: /^([A-Z][\w'’-]*) (?:asked|wondered)\b(?! (?:\w+ )?(?:to|for)\b)/u,
};
const COMPANION = new Set(['我', 'I']);

/** Whether a V2 candidate reports a question that is not a worry of the user's. */
export function asksWithoutWorry(text: string, language: Language, persona: string | undefined): boolean {
  const asker = REPORTED_QUESTION[language].exec(text)?.[1];
  if (asker === undefined) return false;
  return COMPANION.has(asker) || asker === persona || !isConcern(text, language);
}
