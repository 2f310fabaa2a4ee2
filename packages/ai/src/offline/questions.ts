import type { Language } from '@memfade/core';
import { painIn } from './lexicon.js';
import { RULES } from './rules/index.js';

const { zh, en } = RULES;

/**
 * A question as the concern behind it (docs/design.md §6): a statement in the memory's voice, its condition
 * kept ("你担心如果考不好，妈妈会不高兴", "You wondered why Jimmy isn't paying attention to you"), framed as whose it was.
 */

/** A question's end in either language: a question mark, or a Chinese question word closing it. */
export const QUESTION_END = zh.questionEnd.pattern;

/** What a user's question about their own life ("Any book for me?", "我该怎么办？") adds to its worth: what they needed. */
export const CONCERN_BONUS = 5;

/** A question that carries a worry: a painful feeling, a feared outcome, self-doubt, a "why" (the packs'). */
export const isConcern = (text: string, language: Language) =>
  painIn(text, language) || RULES[language].concern.some((rule) => rule.pattern.test(text));

/** A question reported: its frame ("问起", "wondered") and its content, `quoted` where it stays as asked. */
type Report = { frame: string; content: string; quoted?: true };

/** A Chinese question as a statement of what was asked: its frame (问 / 问起 / 担心) and its content. */
export function reportZh(question: string, concern: boolean, byUser = false): Report {
  const asked = question.trim().replace(/[。.，,、；;]+$/u, '');
  let q = asked
    .replace(zh.askingEnd.pattern, '')
    .replace(zh.askingEnd.pattern, '')
    .replace(zh.questionOpener.pattern, '')
    .replace(zh.askerFrame.pattern, '')
    .replace(byUser ? zh.askedOfYou.pattern : /$^/u, '')
    .replace(zh.discourseThat.pattern, '');
  const asksToKnow = zh.youKnowEnd.pattern.test(q) || zh.knowWhere.pattern.test(q); // "地址你知道吗" asks for the address
  q = q
    .replace(zh.youKnowEnd.pattern, '')
    .replace(/[，,\s]+$/u, '')
    .trim();
  // The asker's own worry needs no frame ("我还担心…"); one asked of the other ("你害怕吗？", not "小暖你害怕") is
  // a question, and one after other words ("妈妈说我担心…") is asked: framed, "你担心妈妈说你担心…" (issue 36).
  if (zh.ownWorry.pattern.test(q)) return { frame: '', content: q };
  if (concern && !zh.worryInside.pattern.test(q) && zh.asksSomething.pattern.test(asked))
    return { frame: q.startsWith('为什么') ? '不明白' : '担心', content: q };
  const about = zh.asksFor.pattern.test(q)
    ? null
    : (q.match(zh.about.pattern) ?? q.match(zh.knownAbout.pattern));
  if (about) return { frame: '问起', content: about[1]!.replace(zh.aboutLead.pattern, '') };
  // A yes-or-no question ("门票价格贵吗？") keeps its 吗 ("我问门票价格贵" is a statement): quoted as asked (issue 36).
  const yesNo = !zh.whatAbout.pattern.test(asked) && !zh.eitherOr.pattern.test(q);
  // Not one holding a quote ("“他说：我不去”？" misreads) or with words left out ("我好累啊……所以…").
  const plain = q !== '' && !/[“”"‘’「」…]/u.test(question);
  if (yesNo && plain && !asksToKnow && !zh.asksFor.pattern.test(q))
    return { frame: '问', content: /[?？]$/u.test(asked) ? asked : `${asked}？`, quoted: true };
  q = q.replace(zh.knowWhere.pattern, ''); // "（你）知道X在哪": what was asked is where X is
  return { frame: '问', content: q };
}

/** A question's subject: a pronoun or a name ("Jimmy"), never another word ("What has changed…"). */
const subjectWord = (word: string) => en.questionSubject.pattern.test(word) || /^[A-Z][\w'-]*$/.test(word);

/**
 * The auxiliary as indirect speech keeps it, but "do", which only made the question ("what you
 * think"): "does" carries the person its verb lacks ("how it does look", never "how it look").
 */
const plain = (aux: string) => (en.doSupport.pattern.test(aux) ? '' : aux.toLowerCase());

/** An English question as indirect speech: "Why isn't Jimmy…?" → "why Jimmy isn't…". */
export function reportEn(question: string, concern: boolean, byUser = false): Report {
  // The user asking the companion to do something: quoted (reported: "whether you can remind you").
  if (byUser && en.askedOfYou.pattern.test(question))
    return { frame: 'asked', content: question.replace(QUESTION_END, '').trim(), quoted: true };
  const q = question.replace(QUESTION_END, '').replace(en.questionOpener.pattern, '').trim();
  const subject = (s: string) => (en.questionSubject.pattern.test(s) && s !== 'I' ? s.toLowerCase() : s);
  // Indirect speech: what opens it, the subject, the auxiliary as it keeps it, the rest.
  const indirect = (opener: string, who: string, aux: string, rest = '') =>
    [opener, subject(who), plain(aux), rest].filter(Boolean).join(' ').trim();
  const whatIf = q.match(en.whatIf.pattern);
  if (whatIf) return { frame: 'worried that', content: whatIf[1]! };
  const wh = q.match(en.whQuestion.pattern);
  if (wh && subjectWord(wh[3]!)) {
    const [, w, aux, who, rest] = wh;
    return { frame: 'wondered', content: indirect(w!.toLowerCase(), who!, aux!, rest) };
  }
  const be = q.match(en.whBe.pattern);
  if (be) return { frame: 'wondered', content: `${be[1]!.toLowerCase()} ${be[3]} ${be[2]!.toLowerCase()}` };
  if (wh) return { frame: 'wondered', content: q.charAt(0).toLowerCase() + q.slice(1) };
  const yesNo = q.match(en.yesNo.pattern);
  if (yesNo && subjectWord(yesNo[2]!)) {
    const [, aux, who, rest] = yesNo;
    return { frame: concern ? 'worried' : 'asked', content: indirect('whether', who!, aux!, rest) };
  }
  // No question form to turn into indirect speech ("how'd they like it"): "asked about" made a question of
  // a statement ("Joanna worried about spider-Man has always been…"). Quoted as asked (issue 36).
  return { frame: 'asked', content: q, quoted: true };
}

/**
 * Whether a V2 candidate reports a question V1 wrote without its mark ("你问门票不贵", "Mia asked about…": the
 * packs' reportedQuestion), not a worry of the user's: it reads as a statement nobody made (issue 36). Only
 * the user's worries stay ("你问如果考不好怎么办"), not the companion's (我 / I, its persona) nor answers with others.
 */
export function asksWithoutWorry(text: string, language: Language, persona: string | undefined): boolean {
  const asker = RULES[language].reportedQuestion.pattern.exec(text)?.[1];
  if (asker === undefined) return false;
  return ['我', 'I', persona].includes(asker) || !isConcern(text, language);
}
