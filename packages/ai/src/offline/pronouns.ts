import type { Clause } from './segment.js';

/**
 * A Chinese 他 / 她 says whom it means where only one person could be meant: "你想周末去医院给他
 * 看奖状" kept without the clause that named 爷爷 leaves a reader with nobody to pin it on (the
 * eval's orphans measure). The person is the one word for a person of the pronoun's gender (or of
 * none: 老师, 同桌) in the pronoun's turn and the two before it; with two or none, or the same
 * pronoun said since that word, it stays.
 * Names are not read (Chinese names have no capitals to tell them by), so a 他 after "小王" with no
 * person word around stays 他.
 */

const MALE = [
  '爷爷',
  '外公',
  '姥爷',
  '爸爸',
  '父亲',
  '哥哥',
  '弟弟',
  '叔叔',
  '舅舅',
  '伯伯',
  '老公',
  '丈夫',
  '儿子',
  '男朋友',
];
const FEMALE = [
  '奶奶',
  '外婆',
  '姥姥',
  '妈妈',
  '母亲',
  '姐姐',
  '妹妹',
  '阿姨',
  '婶婶',
  '老婆',
  '妻子',
  '女儿',
  '女朋友',
];
const EITHER = ['老师', '同桌'];
/**
 * A family word or a child's 老师 / 同桌 names someone, unless counted or someone else's ("乾隆皇帝的
 * 第三个女儿", "乾隆的女儿" is no one a pronoun goes on about; "我的女儿" is). Words like 朋友 or 老板
 * are as often no one ("跟你做朋友"): left out.
 */
const PERSON = new RegExp(
  `(?<![个位名])(?<!(?<![我你他她])的)(?:${[...MALE, ...FEMALE, ...EITHER].sort((a, b) => b.length - a.length).join('|')})`,
  'gu',
);
/** 他 / 她, not 他们, 她们, 其他, 吉他, 他人. */
export const PRONOUN_ZH = /(?<![其吉])[他她](?![们人])/u;
/** The turns before a pronoun's own that may name its person. */
const TURNS_BACK = 2;

function fits(word: string, pronoun: string): boolean {
  if (EITHER.includes(word)) return true;
  return pronoun === '他' ? MALE.includes(word) : FEMALE.includes(word);
}

/** The clauses with each 他 / 她 that only one person word around it can mean written as that word. */
export function namePronounsZh(clauses: Clause[]): Clause[] {
  return clauses.map((clause, i) => {
    const m = clause.text.match(PRONOUN_ZH);
    if (!m || clause.section) return clause;
    const earlier = clauses.slice(0, i).filter((c) => !c.section && c.line >= clause.line - TURNS_BACK);
    const before = [...earlier.map((c) => c.text), clause.text.slice(0, m.index)].join('');
    const people = new Set([...before.matchAll(PERSON)].map((p) => p[0]).filter((w) => fits(w, m[0])));
    if (people.size !== 1) return clause;
    const [person] = people;
    // The same pronoun since that word goes on about someone named earlier ("妈妈让我向她道歉…因为她
    // 上周…" is the sister both times): it may not be the word's person.
    if (before.lastIndexOf(m[0]!) > before.lastIndexOf(person!)) return clause;
    return { ...clause, text: clause.text.slice(0, m.index) + person + clause.text.slice(m.index! + 1) };
  });
}
