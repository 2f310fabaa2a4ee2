import { type Language, measureLength } from '@memfade/core';
import {
  EN_FILLER,
  EN_STOPWORDS,
  EN_TIME_WORDS,
  emotionsIn,
  ZH_FILLER,
  ZH_FUNCTION_CHARS,
} from './lexicon.js';
import type { Clause } from './segment.js';

/**
 * What a clause tells, as weighted keys: a fact (a date, a number, a name) weighs more than a
 * plain content word, and a key already kept is worth nothing the second time (novelty).
 */
export interface Unit extends Clause {
  keys: Map<string, number>;
  /** Worth that does not wear off with novelty: first-person plans and events, the persona's interests, feelings. */
  bonus: number;
  question: boolean;
  filler: boolean;
  emotional: boolean;
  length: number;
}

const FACT = 4;
const NAME = 3;
const WORD = 1;
const HAN_PAIR = 0.5;
/** A question asks for a fact more often than it tells one. */
const QUESTION_FACTOR = 0.4;
/** Below this much information a clause is small talk ("Wow, John!", "好的，"). */
const FILLER_BELOW = 2;

const QUESTION_END = /[?？][”’」』）)"']*$/u;

// --- English ---

const EN_TOKEN = /[A-Za-z][A-Za-z'’-]*|\d[\d.,:/-]*\d|\d/g;
const GREETING_BEFORE =
  /(?:^|[\s,])(?:hey|hi|hello|thanks|thank you|wow|congrats|congratulations|oh|aw+|yeah|bye|sorry|dear|good morning|good night)[\s,]+$/i;
const FIRST_PERSON_EN =
  /\b(?:i|we)(?:'m|'ve|'ll|'d| am| have| will| would| was| were| had)?(?:\s+(?:just|finally|recently|really|also|actually|already|still|never|always|totally|even|been|be|not|gonna|going to|planning to|trying to|want to|wanna|hoping to|about to))*\s+(?:will|plan|planning|want|wanted|hope|hoping|love|loved|like|liked|enjoy|enjoyed|prefer|hate|went|go|visited|started|start|finished|joined|got|bought|made|make|took|take|adopted|signed|decided|moved|met|learned|tried|saw|ran|painted|wrote|read|did|found|received|won|lost|created|volunteered|attended|booked|applied|graduated|work|worked|working|going|planning|thinking|getting|taking|doing|starting|learning|volunteering|researching|looking)\b/i;
const MY_EN = /\b(?:my|our)\s+\w+/i;

/** Capitalised words used as names somewhere in the text other than at a sentence start. */
export function namesIn(clauses: Clause[]): Set<string> {
  const names = new Set<string>();
  for (const clause of clauses) {
    const tokens = clause.text.match(EN_TOKEN) ?? [];
    tokens.forEach((token, i) => {
      if (i > 0 && /^[A-Z]/.test(token) && token !== 'I' && !/^I'/.test(token))
        names.add(token.replace(/['’]s$/, ''));
    });
  }
  return names;
}

function englishKeys(text: string, names: Set<string>): Map<string, number> {
  const keys = new Map<string, number>();
  const tokens = [...text.matchAll(EN_TOKEN)];
  for (const [i, match] of tokens.entries()) {
    const token = match[0];
    const word = token.toLowerCase().replace(/['’]s$/, '');
    if (/\d/.test(token)) {
      keys.set(`#${token}`, FACT);
      continue;
    }
    if (EN_TIME_WORDS.has(word)) {
      keys.set(word, FACT);
      continue;
    }
    const bare = token.replace(/['’]s$/, '');
    const capitalised = /^[A-Z]/.test(token) && bare !== 'I' && !/^I['’]/.test(token);
    if (capitalised && (i > 0 || names.has(bare)) && !EN_STOPWORDS.has(word) && !EN_FILLER.has(word)) {
      // A name being addressed ("Thanks, Maria!", "Hey Mel") says nothing about Maria or Mel.
      const before = text.slice(0, match.index);
      const after = text.slice(match.index! + token.length);
      const vocative = GREETING_BEFORE.test(before) || (/,\s*$/.test(before) && /^\s*[!.?]*\s*$/.test(after));
      if (!vocative) keys.set(word, NAME);
      continue;
    }
    if (word.length < 3 || EN_STOPWORDS.has(word) || EN_FILLER.has(word)) continue;
    keys.set(word.replace(/s$/, ''), WORD);
  }
  return keys;
}

// --- Chinese ---

const HAN_RUN = /\p{Script=Han}+/gu;
const ZH_FACTS = [
  // Digits with their unit: dates, times, prices, phone numbers, addresses.
  /\d+(?:[.:：\-~～/]\d+)*\s*(?:[年月日号点时分秒元块角岁个次层楼米天周期位种]|小时|分钟|公里|平米|平方米|万|千|百|%)?/g,
  // Chinese numerals with a unit.
  /[零一二三四五六七八九十两百千万几半]+(?:年|月|日|号|点|岁|个月|个|元|块|次|天|周|小时|分钟|层|米|公里|万|星期)/g,
  // Times and dates in words.
  /今天|明天|昨天|后天|前天|今年|明年|去年|前年|上午|下午|晚上|早上|中午|傍晚|凌晨|周末|下周|上周|本周|这周|下个月|上个月|星期[一二三四五六日天]|周[一二三四五六日天]|礼拜[一二三四五六日天]|春节|国庆|中秋|元旦|端午|清明|旺季|淡季|春天|夏天|秋天|冬天|全天|寒假|暑假|生日/g,
  // Latin words in Chinese text: brands, names, English titles.
  /[A-Za-z][A-Za-z'-]+/g,
];
const ZH_NAMES = [
  // Quoted titles and names.
  /《[^》]{1,20}》|「[^」]{1,20}」|“[^”]{1,12}”/g,
  // Places, by what their names end with.
  // Who or what is called so: 它叫豆豆, 名叫小明.
  /(?<=叫|名叫|名字是|名字叫|称为)\p{Script=Han}{2,3}/gu,
  /\p{Script=Han}{2}(?:省|市|区|县|镇|乡|村|路|街|巷|胡同|大街|大道|广场|公园|景区|大学|学院|中学|小学|医院|博物馆|美术馆|图书馆|剧院|大厦|中心|酒店|饭店|王府|府|宫|寺|庙|塔|楼|桥|门|园|坛|山|湖|海|河|江|潭|岛|屯|城|站|机场)/gu,
];
const FIRST_PERSON_ZH =
  /我(?:们)?(?:最|也|还|很|真|特别|非常|一直|都|就|终于|刚刚)?(?:想|要|会|打算|准备|计划|喜欢|爱|讨厌|不喜欢|去了|去过|刚|已经|正在|最近|明天|下周|今天|昨天|买了|养了|开始|决定|报名|参加|搬|换了|学)|打算|准备去|计划/;
const MY_ZH =
  /我(?:们)?(?:的|家|妈|爸|女儿|儿子|孩子|老公|老婆|男朋友|女朋友|朋友|同事|老板|表|堂|姐|妹|哥|弟|爷爷|奶奶|外公|外婆)/;

function chineseKeys(text: string): Map<string, number> {
  const keys = new Map<string, number>();
  for (const pattern of ZH_FACTS) for (const m of text.match(pattern) ?? []) keys.set(`#${m.trim()}`, FACT);
  // A place name's key is its last characters, so "有恭王府" and "恭王府" count as one place.
  for (const pattern of ZH_NAMES)
    for (const m of text.match(pattern) ?? []) keys.set(`@${[...m].slice(-4).join('')}`, NAME);
  for (const run of text.match(HAN_RUN) ?? []) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) {
      const pair = chars[i]! + chars[i + 1]!;
      if (ZH_FUNCTION_CHARS.has(chars[i]!) || ZH_FUNCTION_CHARS.has(chars[i + 1]!)) continue;
      if (ZH_FILLER.includes(pair)) continue;
      keys.set(pair, HAN_PAIR);
    }
  }
  return keys;
}

/**
 * Weighs each clause by what it tells: dates, times, numbers, names and places, content words;
 * first-person statements of plans, preferences and events, and the persona's interests, as a
 * boost. Filler and bare questions weigh little.
 */
export function analyse(clauses: Clause[], language: Language, interests: string[]): Unit[] {
  const names = namesIn(clauses);
  return clauses.map((clause) => {
    const { text } = clause;
    const zh = /\p{Script=Han}/u.test(text);
    const keys = zh ? chineseKeys(text) : englishKeys(text, names);
    const information = [...keys.values()].reduce((a, b) => a + b, 0);
    const emotional = emotionsIn(text, language).length > 0;
    let bonus = 0;
    if (zh ? FIRST_PERSON_ZH.test(text) : FIRST_PERSON_EN.test(text)) bonus += 2;
    else if (zh ? MY_ZH.test(text) : MY_EN.test(text)) bonus += 0.5;
    const lower = text.toLowerCase();
    if (interests.some((term) => lower.includes(term))) bonus += 2;
    if (emotional) bonus += 0.5;
    return {
      ...clause,
      keys,
      bonus,
      question: QUESTION_END.test(text),
      filler: information + bonus < FILLER_BELOW,
      emotional,
      length: measureLength(text),
    };
  });
}

/** What a clause adds to what is already kept. */
export function gain(unit: Unit, kept: Set<string>): number {
  let fresh = 0;
  for (const [key, weight] of unit.keys) if (!kept.has(key)) fresh += weight;
  const worth = fresh + (fresh > 0 ? unit.bonus : unit.bonus / 4);
  return unit.question ? worth * QUESTION_FACTOR : worth;
}

export interface Selection {
  /** Length cost of adding `unit` to `chosen` (its text plus any speaker label it brings). */
  cost: (unit: Unit, chosen: Unit[]) => number;
  /** How much shorter clauses are favoured: 0 ranks by information alone, 1 by information per character. */
  density: number;
  render: (units: Unit[]) => string;
}

/**
 * Keeps clauses by information per length, each time the one that adds most to what is already
 * kept (so the second mention of a fact is worth nothing: novelty in the manner of MMR), until
 * nothing that still adds information fits in `target.max`; filler only when the extract would
 * otherwise stay under `target.min`. Returns them in their original order.
 */
export function select(units: Unit[], target: { min: number; max: number }, how: Selection): Unit[] {
  const chosen: Unit[] = [];
  const kept = new Set<string>();
  const open = new Set(units.filter((u) => !u.filler));
  const byIndex = (a: Unit, b: Unit) => a.index - b.index;
  while (open.size) {
    let best: Unit | undefined;
    let bestValue = 0;
    for (const unit of open) {
      const value = gain(unit, kept) / how.cost(unit, chosen) ** how.density;
      if (value > bestValue || (value === bestValue && best && unit.index < best.index)) {
        best = unit;
        bestValue = value;
      }
    }
    if (!best || bestValue <= 0) break;
    open.delete(best);
    if (measureLength(how.render([...chosen, best].sort(byIndex))) > target.max) continue;
    chosen.push(best);
    for (const key of best.keys.keys()) kept.add(key);
  }
  chosen.sort(byIndex);
  // Too short still: the rest, most informative first, as long as it fits.
  if (measureLength(how.render(chosen)) < target.min) {
    const rest = units.filter((u) => !chosen.includes(u));
    rest.sort((a, b) => gain(b, new Set()) - gain(a, new Set()) || byIndex(a, b));
    for (const unit of rest) {
      if (measureLength(how.render(chosen)) >= target.min) break;
      const trial = [...chosen, unit].sort(byIndex);
      if (measureLength(how.render(trial)) <= target.max) chosen.splice(0, chosen.length, ...trial);
    }
  }
  return chosen;
}

/**
 * The best clauses of `units` as a ranking, each judged by what it adds to those ranked before it
 * for its length (as `select` judges it): the top facts first, a repeat of a kept fact last.
 */
export function rank(units: Unit[], density: number): Unit[] {
  const kept = new Set<string>();
  const open = [...units];
  const out: Unit[] = [];
  while (open.length) {
    let bestAt = 0;
    let bestValue = -1;
    open.forEach((unit, i) => {
      const value = gain(unit, kept) / unit.length ** density;
      if (value > bestValue) {
        bestAt = i;
        bestValue = value;
      }
    });
    const [best] = open.splice(bestAt, 1);
    out.push(best!);
    for (const key of best!.keys.keys()) kept.add(key);
  }
  return out;
}
