import type { Language } from './memory.js';

/**
 * The one fact extractor (docs/design.md §11): what a text states that a memory must not lose —
 * names, places, dates, numbers, plans and the topic. The retention gate (stage.ts) looks for the
 * facts of a stage's input in its output; `memfade eval` measures the same share from raw to each
 * stage; compressors may rank by it. Regular expressions only: it runs on every stage of a night.
 */

export type FactKind = 'name' | 'place' | 'date' | 'number' | 'plan' | 'topic';

export interface Fact {
  kind: FactKind;
  /** As found in the text, for people to read (a repair turn, the eval's examples). */
  text: string;
  /** Normalised terms that must all be in an output for it to hold the fact. */
  terms: string[];
}

/**
 * How a fact is looked for: lower case, without whitespace, punctuation and symbols, so
 * "7 May, 2023" is found in "on 7 May 2023" and "北京市东城区" in "北京市 东城区".
 */
export function normalise(text: string): string {
  const lower = text.toLowerCase();
  const table = droppedTable();
  let out = '';
  let start = 0;
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    if (table[code] === 0) continue;
    // A surrogate pair (an emoji) is one code point, tested as one.
    const width = table[code] === 2 ? (DROPPED.test(lower.slice(i, i + 2)) ? 2 : 0) : 1;
    if (width === 0) {
      i++;
      continue;
    }
    out += lower.slice(start, i);
    start = i + width;
    i += width - 1;
  }
  return start === 0 ? lower : out + lower.slice(start);
}

/** What normalise drops: punctuation, symbols, separators and white space. */
const DROPPED = /^[\p{P}\p{S}\p{Z}\s]$/u;
let dropped: Uint8Array | undefined;

/**
 * Per UTF-16 unit: 1 dropped, 2 a high surrogate (its pair decides), 0 kept; made once from
 * DROPPED, since a Unicode property regex per character is several times slower.
 */
function droppedTable(): Uint8Array {
  if (!dropped) {
    dropped = new Uint8Array(0x10000);
    for (let c = 0; c < 0x10000; c++) if (DROPPED.test(String.fromCharCode(c))) dropped[c] = 1;
    dropped.fill(2, 0xd800, 0xdc00);
  }
  return dropped;
}

/** Whether a normalised text holds a fact given as text (normalised here). An empty fact is never held. */
export function holdsFact(normalisedText: string, fact: string): boolean {
  const needle = normalise(fact);
  return needle !== '' && normalisedText.includes(needle);
}

// ---- what is not the speaker's words: speaker labels, section headings ----

/** "Caroline: ", "user: ", "【摘要】", "[Key points] " at the start of a line: not content. */
const LINE_PREFIX =
  /^\s*(?:【[^】\n]{1,12}】|\[[A-Za-z ]{1,24}\]\s*)?(?:[^\s\d:：。.!?！？,，](?:[^:：\n。.!?！？]{0,22}[^\d\s:：])?[:：]\s*)?/;

/** The text without line prefixes (labels, headings), lines kept. */
export function contentOf(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(LINE_PREFIX, ''))
    .join('\n');
}

type Add = (kind: FactKind, found: string, at: number, terms?: string[]) => void;

// ---- English ----

const MONTHS =
  'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec';
const WEEKDAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const EN_DATES = [
  // 7 May 2023, 7th May, May 7, May 7th, 2023, May 2023
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS})\\.?(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b(?:${MONTHS})\\s+\\d{4}\\b`, 'g'),
  new RegExp(
    `\\b(?:last|next|this|on|every)\\s+(?:${WEEKDAYS}|weekend|week|month|year|summer|winter|spring|fall)\\b`,
    'gi',
  ),
  new RegExp(`\\b(?:${WEEKDAYS})\\b`, 'g'),
  /\b(?:yesterday|tomorrow|tonight|(?:a|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago)\b/gi,
  /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b/gi,
  /\b(?:19|20)\d{2}\b/g,
];
/** A number with the word it counts: "900 euros", "3 kids", "5.5 km"; a bare number otherwise. */
const EN_NUMBER = /\b\d+(?:[.,]\d+)*(?:\s?%|\s+(?!and\b|or\b|the\b|a\b|to\b|of\b|in\b)[a-z]+)?/gi;
/** A plan: what follows "going to", "planning to", "I'll"... (its first two content words are its terms). */
const EN_PLAN =
  /\b(?:going to|gonna|planning (?:to|on)|plans? to|hoping to|hope to|about to|thinking (?:of|about)|want to|wanna|would like to|decided to|signed up (?:for|to)|(?:i|we)(?:'ll|’ll| will))\s+((?:[a-z'’-]+(?:\s+|$)){1,4})/gi;
const EN_STOP = new Set(
  'a an the and or but of to in on at for with from by as is am are was were be been it its this that my our your their his her me us you i we they he she some any go get do make take have try start see check out up really just also more new so too definitely probably surely sure be totally actually'.split(
    ' ',
  ),
);
/** Capitalised words that are not names. */
const EN_NOT_NAMES = new Set(
  `I I'm I've I'll I'd OK Okay Oh Hey Hi Hello Yes Yeah No Wow Thanks Thank Sure Well So But And Or The A An It It's That This What When Where Why How Who Which My Your Our We You He She They Me Mom Dad Mum God Lol Haha Aw Omg Congrats Good Great Nice Cool Sorry Please Let Let's Just Also Maybe Really Anyway Btw User Assistant Bot AI Human System ${MONTHS.replaceAll('|', ' ')} ${WEEKDAYS.replaceAll('|', ' ')}`.split(
    ' ',
  ),
);
const PLACE_BEFORE = /\b(?:in|at|to|from|near|visit|visited|visiting|around)\s+$/i;
const NAME_RUN = /\b[A-Z][A-Za-z'’-]*(?:\s+(?:of\s+)?[A-Z][A-Za-z'’-]*)*/g;
const ACRONYM = /^[A-Z]{2,}/;
const GREETING = /^(?:Hey|Hi|Hello|Thanks|Thank|Bye|Wow|Congrats|Dear)\b/;
const VOCATIVE_BEFORE = /\b(?:hey|hi|hello|thanks|thank you|bye|wow|congrats),?\s*$/i;

function englishFacts(text: string, add: Add) {
  for (const pattern of EN_DATES) for (const m of text.matchAll(pattern)) add('date', m[0], m.index);
  for (const m of text.matchAll(EN_PLAN)) {
    const words = m[1]!
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w && !EN_STOP.has(w));
    if (words.length) add('plan', m[0].trim(), m.index, words.slice(0, 2).map(normalise));
  }
  for (const m of text.matchAll(EN_NUMBER)) add('number', m[0], m.index, [normalise(m[0].split(/\s+/)[0]!)]);
  // A name: capitalised words, not the first word of a sentence unless it is capitalised elsewhere.
  const runs: { at: number; run: string; initial: boolean; words: string[] }[] = [];
  for (const m of text.matchAll(NAME_RUN)) {
    const words = m[0].split(/\s+/).map((w) => w.replace(/['’]s$/, ''));
    // Most runs are one word that is no name ("I", "The"): dropped before any other test.
    if (words.every((w) => EN_NOT_NAMES.has(w))) continue;
    // After a quote mark is not a sentence start: "Taxi Driver" is a title.
    const initial = m.index === 0 || /[.!?\n]\s*$/.test(text.slice(Math.max(0, m.index - 3), m.index));
    runs.push({ at: m.index, run: m[0], initial, words });
  }
  const midSentence = new Set<string>();
  for (const r of runs)
    r.words.forEach((w, i) => {
      if (i > 0 || !r.initial) midSentence.add(w);
    });
  for (const { at, run, initial, words } of runs) {
    // A name being addressed ("Thanks, Maria!", "Hey Mel") says nothing about Maria or Mel.
    const before = text.slice(Math.max(0, at - 14), at);
    const after = text.charAt(at + run.length);
    if (GREETING.test(run) || VOCATIVE_BEFORE.test(before) || after === '!' || (after === ',' && initial))
      continue;
    // The name runs from its first name word to its last, as written ("Game of Thrones").
    const isName = (w: string, i: number) =>
      w !== 'of' && !EN_NOT_NAMES.has(w) && (i > 0 || !initial || midSentence.has(w) || ACRONYM.test(w));
    const first = words.findIndex(isName);
    const last = words.findLastIndex(isName);
    const offsets = [...run.matchAll(/\S+/g)].map((t) => t.index);
    const kept = first < 0 ? '' : run.slice(offsets[first], offsets[last]! + words[last]!.length);
    if (kept) add(PLACE_BEFORE.test(before) ? 'place' : 'name', kept, at);
  }
}

// ---- Chinese ----

const ZH_DATES = [
  /\d{2,4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?/g,
  /\d{1,2}\s*月\s*\d{1,2}\s*[日号]?/g,
  /[一二三四五六七八九十]{1,3}月(?:[初]?[一二三四五六七八九十]{1,3}[日号])?/g,
  /(?:下|上|这|本)?(?:个)?(?:星期|周|礼拜)[一二三四五六日天]/g,
  /今天|明天|昨天|后天|前天|今晚|昨晚|明晚|今早|明早|今年|明年|去年|前年|下周|上周|这周(?![边围遭到全期])|本周|下个月|上个月|这个月|周末|春节|国庆|中秋|元旦|端午|清明|寒假|暑假|生日/g,
  /\d{1,2}[:：]\d{2}|\d{1,2}\s*点(?:\s*\d{1,2}\s*分|半)?/g,
];
const ZH_NUMBERS = [
  /\d+(?:[.,]\d+)*\s*(?:%|万|千|百|亿)?(?:元|块|角|岁|个|次|层|楼|米|公里|千米|平米|平方米|天|周|小时|分钟|秒|年|月|斤|公斤|克|人|只|条|本|部|家|座|场|张|分|度|倍)?/g,
  /[零一二三四五六七八九十两百千万几半]+(?:年|个月|岁|个|元|块|次|天|周|小时|分钟|层|米|公里|万|只|条|本|部|家|座|场|张|倍|口人)/g,
];
/** A place: the two characters before what place names end with (北京市, 保利剧院, 恭王府). */
const ZH_PLACE =
  /(\p{Script=Han}{2})(?:省|市|区|县|镇|村|路|街|大街|大道|胡同|巷|广场|公园|景区|大学|学院|中学|小学|医院|博物馆|美术馆|图书馆|剧院|剧场|大厦|酒店|饭店|府|宫|寺|庙|塔|山|湖|岛|机场|火车站)/gu;
const ZH_NAMES = [
  /《[^》]{1,30}》|「[^」]{1,20}」/g,
  /(?<=叫|名叫|名字是|名字叫|称为|是我的)[\p{Script=Han}]{2,3}/gu,
];
/** Characters that glue a sentence; a "place" or plan word starting with one was cut in the wrong place. */
const ZH_GLUE =
  /^[的了是在有和也都就还很那这你我他她它们个么与及或而但又被把给让对从向到会能要想去来说得地着过一上下里号]/u;
const ZH_PLAN =
  /(?:打算|准备|计划|想要|决定|要去|我想|我要|将要|下周要|明天要)(?:去|在|把|给|到|要|学|和)?([\p{Script=Han}]{2})/gu;

function chineseFacts(text: string, add: Add) {
  for (const pattern of ZH_DATES) for (const m of text.matchAll(pattern)) add('date', m[0], m.index);
  for (const pattern of ZH_NAMES) for (const m of text.matchAll(pattern)) add('name', m[0], m.index);
  for (const m of text.matchAll(ZH_PLACE)) {
    // "去过西湖": the name starts after the glue character.
    const glued = ZH_GLUE.test(m[1]!);
    const place = glued ? m[0].slice(1) : m[0];
    if (!ZH_GLUE.test(place)) add('place', place, m.index + (glued ? 1 : 0));
  }
  for (const m of text.matchAll(ZH_PLAN)) if (!ZH_GLUE.test(m[1]!)) add('plan', m[0], m.index, [m[1]!]);
  // "一个", "一次", "几天": an article or a guess, not a number worth keeping.
  for (const pattern of ZH_NUMBERS)
    for (const m of text.matchAll(pattern))
      if (!/^一.$|几/u.test(m[0].trim())) add('number', m[0].trim(), m.index);
  // Latin words in Chinese text: brands, names, English titles.
  for (const m of text.matchAll(/[A-Za-z][A-Za-z'-]{1,}(?:\s+[A-Z][A-Za-z'-]+)*/g))
    add('name', m[0], m.index);
}

/**
 * The facts a text states, each once (by its terms), in the order found by kind: dates first,
 * so "7 May 2023" is one date rather than a date and a number. The topic is the name or place
 * mentioned most often (at least twice).
 */
export function extractFacts(text: string, language: Language): readonly Fact[] {
  const key = `${language}\n${text}`;
  const known = recent.get(key);
  if (known) return known;
  const facts = extract(text, language);
  recent.set(key, facts);
  // The last few texts only: a stage's input is extracted by the gate and again by the eval.
  if (recent.size > 4) recent.delete(recent.keys().next().value!);
  return facts;
}

const recent = new Map<string, readonly Fact[]>();

function extract(text: string, language: Language): readonly Fact[] {
  const content = contentOf(text);
  const taken: [number, number][] = [];
  const byKey = new Map<string, Fact & { count: number; first: number }>();
  const add = (kind: FactKind, found: string, at: number, terms?: string[]) => {
    const cleaned = found.trim();
    const end = at + found.length;
    // Overlapping a fact found before (the year of a date): not a fact of its own.
    if (kind !== 'plan' && taken.some(([s, e]) => at < e && end > s)) return;
    const factTerms = (terms ?? [normalise(cleaned)]).filter((t) => t !== '');
    if (factTerms.length === 0) return;
    if (kind !== 'plan') taken.push([at, end]);
    const key = `${kind === 'place' ? 'name' : kind}:${factTerms.join('|')}`;
    const known = byKey.get(key);
    if (known) known.count++;
    else byKey.set(key, { kind, text: cleaned, terms: factTerms, count: 1, first: at });
  };
  if (language === 'zh') chineseFacts(content, add);
  else englishFacts(content, add);
  const facts = [...byKey.values()];
  const named = facts.filter((f) => f.kind === 'name' || f.kind === 'place');
  const topic = named.sort((a, b) => b.count - a.count || a.first - b.first)[0];
  if (topic && topic.count >= 2) topic.kind = 'topic';
  return facts.map(({ kind, text: found, terms }) => ({ kind, text: found, terms }));
}

/** Whether a normalised output holds a fact: every one of its terms is in it. */
export function holds(normalisedOutput: string, fact: Fact): boolean {
  return fact.terms.every((term) => normalisedOutput.includes(term));
}

/** What an output keeps of the facts of its input. */
export interface Retention {
  facts: number;
  kept: number;
  /** kept / facts; null when the input states no fact. */
  share: number | null;
  missing: Fact[];
}

export function retentionOf(facts: readonly Fact[], output: string): Retention {
  const normalised = normalise(output);
  const missing = facts.filter((f) => !holds(normalised, f));
  const kept = facts.length - missing.length;
  return { facts: facts.length, kept, share: facts.length ? kept / facts.length : null, missing };
}

/** The share of the input's facts the output still holds (extractFacts on the input). */
export function retention(input: string, output: string, language: Language): Retention {
  return retentionOf(extractFacts(input, language), output);
}

/** Missing facts counted by kind, e.g. "3 dates, 1 name": what a warning says without quoting memory text. */
export function describeMissing(missing: Fact[]): string {
  const counts = new Map<FactKind, number>();
  for (const f of missing) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return [...counts.entries()].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`).join(', ');
}
