import { type Reading, sourceTurn, unlabelled } from './reading.js';

/**
 * A he or she whose person the memory never names: "You will ask her to coffee on Thursday" where
 * the conversation said "talk with Priya… I'll ask her" and the stage kept no Priya. A reader cannot
 * tell who is meant. The people it may stand for are those the conversation named in its turn
 * and the two before (by name, or by a word for a person: "my mom"); the stage must name one of
 * them, or someone named earlier, before it. Singular pronouns only: "they" is also how a memory
 * goes on about a named speaker, and 它 is a thing's. A heuristic: it cannot tell which of two
 * named people a pronoun means, so it only flags a pronoun a reader has nobody to pin on.
 */

const PRONOUN_EN = /\b(?:he|him|his|she|her|hers)\b/i;
/** Not 其他 / 他人 (others), 吉他 (a guitar), 他们 / 她们. */
const PRONOUN_ZH = /(?<![其吉])[他她](?![们人])/u;

/**
 * The pronoun's turn and the ones before it where its person may be named: the last person named
 * is not always the one meant ("the vet said it was time… were you with her?" is the cat), so a
 * stage naming anyone named there passes. Further back, a reader of the memory has lost the thread.
 */
const TURNS_BACK = 2;

/** Words for a person a pronoun can stand for. */
const PERSON_EN =
  /\b(?:mom|mum|mother|dad|father|sister|brother|daughter|son|wife|husband|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew|friend|boss|manager|teacher|coach|doctor|vet|nurse|therapist|landlord|roommate|neighbou?r|colleague|coworker|girlfriend|boyfriend|partner|baby|kid|child|boy|girl|man|woman|guy|lady)\b/gi;
const PERSON_ZH =
  /妈妈|爸爸|母亲|父亲|姐姐|哥哥|妹妹|弟弟|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|老师|同学|同桌|朋友|老板|经理|医生|护士|教练|女儿|儿子|老公|老婆|丈夫|妻子|男朋友|女朋友|邻居|同事|宝宝|孩子/gu;
/** A capitalised word that is no name: sentence openers, days, months, titles, places. */
const NOT_NAME_EN =
  /^(?:Street|Avenue|Road|Hospital|School|University|College|Park|Center|Centre|Museum|Church|Lake|River|I|I'm|I've|I'll|I'd|The|A|An|My|Our|Your|It|This|That|He|She|They|We|You|And|But|So|Oh|Yes|No|Hi|Hey|Dr|Mr|Mrs|Ms|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$/;

interface Person {
  at: number;
  /** How the conversation named them, in lower case. */
  who: string;
  /** A person word's name right after it ("朋友小王", "my friend Sam"): naming either names them. */
  name?: string;
  /** Named by a word for a person ("mom", "老师"), not by a name. */
  word?: boolean;
}

/** The people a text names, in order: capitalised words not opening a sentence, and person words. */
function peopleIn(text: string, language: 'zh' | 'en', known: string[]): Person[] {
  const found: Person[] = [];
  for (const name of known)
    for (let at = text.indexOf(name); name && at >= 0; at = text.indexOf(name, at + 1))
      found.push({ at, who: name.toLowerCase() });
  const after = (m: RegExpMatchArray, next: RegExp) =>
    text
      .slice(m.index! + m[0].length)
      .match(next)?.[1]
      ?.toLowerCase();
  if (language === 'zh') {
    for (const m of text.matchAll(PERSON_ZH))
      found.push({ at: m.index, who: m[0], name: after(m, /^(\p{Script=Han}{2})/u), word: true });
    return found;
  }
  for (const m of text.matchAll(PERSON_EN))
    found.push({ at: m.index, who: m[0].toLowerCase(), name: after(m, /^,?\s+([A-Z][a-z]+)/), word: true });
  for (const m of text.matchAll(/[A-Z][a-z]+(?:['’][a-z]+)?/g)) {
    const opens = /(?:^|[.!?:]["”')]*\s+|\n)$/.test(text.slice(Math.max(0, m.index - 4), m.index));
    const word = m[0].replace(/['’]s$/, '');
    if (!opens && !NOT_NAME_EN.test(word)) found.push({ at: m.index, who: word.toLowerCase() });
  }
  return found;
}

/** The clause of `text` (between commas, semicolons or the sentence's ends) around position `at`. */
function clauseAt(text: string, at: number): string {
  const cuts = /[，,；;：:]/gu;
  let start = 0;
  for (const m of text.matchAll(cuts)) {
    if (m.index >= at) return text.slice(start, m.index);
    start = m.index + 1;
  }
  return text.slice(start);
}

/** The stage sentences with a he or she whose person the stage never names before it. */
export function unnamedPronouns(reading: Reading, sentences: string[]): string[] {
  const { language } = reading.view;
  const pronoun = language === 'zh' ? PRONOUN_ZH : PRONOUN_EN;
  const { knownNames = [], topic } = reading.view;
  const known = [...reading.names, ...knownNames, ...(topic ? [topic] : [])];
  const out: string[] = [];
  let before = '';
  for (const sentence of sentences) {
    const text = unlabelled(reading, sentence);
    const m = text.match(pronoun);
    // The clause holding it is looked up in the conversation: a stage joins clauses of several turns.
    const clause = m ? clauseAt(text, m.index!) : '';
    const turn = m ? (sourceTurn(reading, clause) ?? sourceTurn(reading, text)) : undefined;
    // Where the pronoun was said: the conversation up to it holds the person it stood for.
    const said = turn === undefined ? '' : reading.view.turns[turn]!.text;
    const at = m ? said.search(language === 'zh' ? pronoun : new RegExp(`\\b${m[0]}\\b`, 'i')) : -1;
    if (m && turn !== undefined && at >= 0) {
      const prefix = [...reading.view.turns.slice(0, turn).map((t) => t.text), said.slice(0, at)];
      const near = peopleIn(prefix.slice(-TURNS_BACK - 1).join('\n'), language, known);
      // Anyone the conversation named by name before (in Chinese, by a person word too: names have
      // no capitals to tell them by) and the stage names: a reader takes the pronoun for them.
      const anyEarlier = peopleIn(prefix.join('\n'), language, known).filter(
        (p) => language === 'zh' || !p.word,
      );
      const stageBefore = `${before} ${text.slice(0, m.index)}`.toLowerCase();
      const names = (p: Person) =>
        stageBefore.includes(p.who) || Boolean(p.name && stageBefore.includes(p.name));
      if (near.length && !near.some(names) && !anyEarlier.some(names)) out.push(text);
    }
    before += ` ${text}`;
  }
  return out;
}
