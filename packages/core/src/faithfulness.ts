import { InvalidModelOutputError } from './errors.js';
import type { Language, Memory, RoleCard, TargetStage, Usage } from './memory.js';

/**
 * Never invent (issue 36; docs/design.md §11): every word of an extractive stage, outside a small
 * closed frame (who said it: the speakers' names, 你 / "you", 我 / "I"; 说 / "said" and the other
 * reporting verbs; a few connectives; the dates the compressor anchors, which it computes), comes
 * from the turn of the speaker its sentence is attributed to, in that order. A pronoun may change
 * only where the person it names is certain: the speaker's own 我 / "I" (me, my, mine, myself)
 * becomes the speaker's name, 你 / "you" or stays; every other one (我们, 俩, we, our, they, his)
 * is as said. A person word is checked together with the word after it ("your kids" is not "our
 * kids"), and text inside 《》 or quotes as one piece. The offline compressor's gate refuses a
 * stage with an invented span (stage.ts gate()); `memfade eval` counts and quotes them.
 */

export interface SourceTurn {
  /** The turn's label; undefined for a memory stored as one string, which nobody is known to have said. */
  role?: string;
  text: string;
}

export interface FaithfulnessSource {
  language: Language;
  turns: SourceTurn[];
  /** The role card's names (persona, user): a speaker's own "I" may be written as one. */
  names: string[];
  /** The label of the user's turns (by default `user` or a user role word). */
  userRole?: string;
}

interface Tok {
  key: string;
  start: number;
  end: number;
  /** A person word, checked with the word after it. */
  person: boolean;
  /** Punctuation between this token and the next one: the next is not its word. */
  cut: boolean;
}

const USER = /^(?:user|human|usr|member|customer|用户|人类)$/i;
const PERSON_EN = new Set(
  'i me my mine myself we us our ours ourselves you your yours yourself yourselves they them their theirs themselves themself he him his she her hers'.split(
    ' ',
  ),
);
const FIRST_EN: Record<string, (name: string) => string> = {
  i: (n) => n,
  me: (n) => n,
  my: (n) => `${n}'s`,
  mine: (n) => `${n}'s`,
  myself: () => 'yourself',
};
const SECOND_EN: Record<string, string> = {
  i: 'you',
  me: 'you',
  my: 'your',
  mine: 'yours',
  myself: 'yourself',
};
const PERSON_ZH = [
  '我们',
  '我俩',
  '咱们',
  '咱俩',
  '你们',
  '你俩',
  '他们',
  '她们',
  '我',
  '你',
  '您',
  '他',
  '她',
];
/** A 我 that is not the speaker: 我国, 我校 (an institution's "our"), 自我, 忘我 (a word). */
const NOT_SPEAKER_ZH = /^我[国校市省司院厂军方]|[自忘]我$/u;
/** Free where no word of the speaker follows them. */
const FRAME = {
  en: new Set(['you', 'i', 'and', 'that', 'whether', 'if', 'but', 'so', 'then', 'to']),
  zh: new Set(['你', '我', '和', '也', '还']),
};
/** The words that say who said it ("You said", "小满问起"), and the topic line ("我们聊到了…", "We talked about"). */
const REPORT = {
  en: "(?:said|asked|told|wondered|worried|mentioned|shared|talked about)(?: (?:that|whether|if|about)(?![\\w'’]))?",
  zh: '(?:说|问起|问|告诉|提到|担心|想知道|不知道|不明白|聊到了)',
};
/** The dates the compressor anchors a relative one to, in brackets (offline dates.ts). */
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const ANCHORED = new RegExp(
  `（(?:\\d{4}年)?\\d{1,2}月(?:\\d{1,2}日)?(?:那周)?）|\\((?:week of )?(?:\\d{1,2} )?${MONTH}(?: \\d{4})?\\)|[（(]\\d{4}年?[)）]`,
  'gu',
);
/** Verb forms that follow their subject's person, one form each ("I am" → "you are" / "Mia is"). */
const AGREE: Record<string, string> = {
  am: 'be',
  are: 'be',
  is: 'be',
  "'m": 'be',
  "'re": 'be',
  "'s": 'be',
  was: 'was',
  were: 'was',
  has: 'have',
  "'ve": 'have',
  does: 'do',
  goes: 'go',
  doesn: 'don',
  isn: 'aren',
  wasn: 'weren',
  hasn: 'haven',
  "'d": 'would',
  "'ll": 'will',
};
const AUXILIARY = new Set(
  "be am are is have has do does don did didn can could will would should shall may might must was were aren weren haven isn wasn hasn doesn couldn won wouldn shouldn 't".split(
    ' ',
  ),
);
const agree = (word: string) => AGREE[word] ?? stem(word);
const stem = (word: string) =>
  word.length > 3
    ? word
        .replace(/ies$/, 'y')
        .replace(/(?<=sh|ch|x|z|ss)es$/, '')
        .replace(/(?<!s)s$/, '')
    : word;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each set of names' pattern, built once: a stage is checked segment by segment, turn by turn. */
const patterns = new Map<string, RegExp>();

function patternOf(language: Language, names: string[]): RegExp {
  const key = `${language}\u0000${names.join('\u0000')}`;
  let pattern = patterns.get(key);
  if (!pattern) {
    const byLength = [...names].sort((a, b) => b.length - a.length).map(escaped);
    const named = byLength.length ? `${byLength.join('|')}|` : '';
    pattern =
      language === 'zh'
        ? new RegExp(`《[^》]*》|“[^”]*”|${named}${PERSON_ZH.join('|')}|[A-Za-z0-9]+|\\p{Script=Han}`, 'gu')
        : new RegExp(`(?:${named}[A-Za-z0-9]+)(?:['’][A-Za-z]*)?`, 'giu');
    if (patterns.size > 1000) patterns.clear();
    patterns.set(key, pattern);
  }
  return pattern;
}

function tokens(text: string, language: Language, names: string[]): Tok[] {
  const pattern = patternOf(language, names);
  const nameSet = new Set(names.map((n) => n.toLowerCase()));
  const out: Tok[] = [];
  for (const m of text.matchAll(pattern)) {
    // "James'" is the name's possessive as "Mia's" is; a bare apostrophe after another word goes.
    const word = m[0].toLowerCase().replace(/’/g, "'");
    const raw = word.endsWith("'") ? (nameSet.has(word.slice(0, -1)) ? `${word}s` : word.slice(0, -1)) : word;
    const cut = raw.indexOf("'");
    const parts =
      language === 'en' && cut > 0 && !(nameSet.has(raw.slice(0, cut)) && raw.endsWith("'s"))
        ? [raw.slice(0, cut), raw.slice(cut)]
        : [raw];
    for (const [i, key] of parts.entries()) {
      const person =
        language === 'zh'
          ? PERSON_ZH.includes(key) || nameSet.has(key)
          : PERSON_EN.has(key) || nameSet.has(key) || nameSet.has(key.replace(/'s$/, ''));
      out.push({ key, start: m.index, end: m.index + m[0].length, person, cut: i === parts.length - 1 });
    }
  }
  for (const [i, t] of out.entries()) {
    const next = out[i + 1];
    // Punctuation before the next token ends the person word's clause ("thank you, Mia").
    t.cut = t.cut && (!next || /[,.;:!?，。；：！？、…—]/u.test(text.slice(t.end, next.start)));
    // A verb follows its new subject ("I really enjoy" → "Jason really enjoys"): English words are
    // compared without their -s, and be / have / do in one form.
    if (language === 'en' && !t.person) t.key = agree(t.key);
  }
  return out;
}

/** What a source token may be written as: the speaker's own "I" as the speaker. */
function alternatives(t: Tok, language: Language, own: string[] | undefined, turn: string): string[] {
  if (!own || !t.person) return [t.key];
  if (language === 'zh')
    return t.key === '我' && !NOT_SPEAKER_ZH.test(turn.slice(t.start - 1, t.end + 1))
      ? ['我', '你', ...own]
      : [t.key];
  if (!(t.key in SECOND_EN)) return [t.key];
  return [t.key, SECOND_EN[t.key]!, ...own.map((n) => FIRST_EN[t.key]!(n))];
}

interface SourceTok {
  keys: Set<string>;
}

/** A turn's tokens as the stage may say them: each person word with its next word (or its inverted auxiliary). */
function sourceOf(turn: SourceTurn, ctx: FaithfulnessSource, names: string[]): SourceTok[] {
  const toks = tokens(turn.text, ctx.language, names);
  const own = turn.role === undefined ? undefined : [...names, turn.role.toLowerCase()];
  return toks.map((t, i) => {
    const alts = alternatives(t, ctx.language, own, turn.text);
    if (!t.person) return { keys: new Set(alts) };
    const after = toks[i + 1];
    const nexts = t.cut || !after ? [''] : alternatives(after, ctx.language, own, turn.text);
    const before = toks[i - 1];
    // "+*": the person word alone, for a stage whose clause ends on it ("…to celebrate us.").
    const keys = alts.flatMap((a) => [`${a}+*`, ...nexts.map((n) => `${a}+${n}`)]);
    // "Have you found a vet?" is reported as "whether you have found…".
    if (before && !before.cut && ctx.language === 'en')
      keys.push(...alts.map((a) => `${a}+${agree(before.key)}`));
    return { keys: new Set(keys) };
  });
}

/** The turns a stage's segment may come from: its speaker's, or anyone's where it names none. */
function turnsOf(who: string | undefined, ctx: FaithfulnessSource): SourceTurn[] {
  if (who === undefined) return ctx.turns;
  const isUser = (t: SourceTurn) => t.role === undefined || t.role === ctx.userRole || USER.test(t.role);
  const w = who.toLowerCase();
  if (w === 'you' || w === '你') return ctx.turns.filter(isUser);
  if (w === 'i' || w === '我') return ctx.turns.filter((t) => !isUser(t));
  const labelled = ctx.turns.filter((t) => t.role?.toLowerCase() === w);
  return labelled.length ? labelled : ctx.turns;
}

/**
 * The spans of `stage` that nobody said (empty: the stage is faithful), as quoted text. Each
 * sentence is split where a speaker is named with a reporting verb; what follows is checked
 * against that speaker's turns, what no speaker is named for against every turn.
 */
export function inventedSpans(stage: string, ctx: FaithfulnessSource): string[] {
  const names = [
    ...new Set([...ctx.names, ...ctx.turns.flatMap((t) => (t.role && !USER.test(t.role) ? [t.role] : []))]),
  ]
    .filter((n) => n.trim() !== '' && !/^(?:assistant|ai|bot|model|companion|system|助手)$/i.test(n))
    .map((n) => n.toLowerCase());
  const who = `(${[...names.map(escaped), ctx.language === 'zh' ? '我们|你|我' : 'you|i|he|she|we'].join('|')})`;
  const and = ctx.language === 'zh' ? `(?:${who}和${who})?` : `(?:${who} and ${who} )?`;
  const attributed = ctx.turns.some((t) => t.role !== undefined);
  // A request is reported as one: "Mia told you (not) to…" (offline lines.ts).
  const told = `(?: told (?:${who.slice(1, -1)})(?: not)? to)`;
  const marker = new RegExp(
    ctx.language === 'zh'
      ? `${and}${who}${REPORT.zh}`
      : // The answer joined to its question: "X asked…, and Caroline drew it" is Caroline's.
        `\\b${and}${who}(?:${told}| ${REPORT.en})\\b|, and ${who}(?= (?!${REPORT.en}|told\\b)[a-z])`,
    'giu',
  );
  const text = stage.replace(ANCHORED, (m) => ' '.repeat(m.length));
  const spans: string[] = [];
  const sources = new Map<string, SourceTok[][]>();
  const sentences = ctx.language === 'zh' ? /[^。！？!?…]+[。！？!?…]*/gu : /[^.!?]+[.!?]*/gu;
  for (const sentence of text.matchAll(sentences)) {
    const at = sentence.index;
    const marks = attributed ? [...sentence[0].matchAll(marker)] : [];
    const bounds = [{ start: 0, who: undefined as string | undefined }];
    for (const m of marks) {
      // "X和Y聊到了…", "X and Y talked about…": the topic line names no one speaker.
      const named = m[3] ?? m[4];
      const subject = m[1] || /^(?:我们|we)$/i.test(named!) ? undefined : named;
      bounds.push({ start: m.index, who: subject });
      bounds.push({ start: m.index + m[0].length, who: subject });
    }
    for (const [i, b] of bounds.entries()) {
      const end = bounds[i + 1]?.start ?? sentence[0].length;
      if (i % 2 === 1 || end <= b.start) continue;
      const segment = sentence[0].slice(b.start, end);
      const key = b.who?.toLowerCase() ?? '';
      let turns = sources.get(key);
      if (!turns) {
        turns = turnsOf(b.who, ctx).map((t) => sourceOf(t, ctx, names));
        sources.set(key, turns);
      }
      for (const [s, e] of unsaid(segment, turns, ctx.language, names, attributed))
        spans.push(stage.slice(at + b.start + s, at + b.start + e).trim());
    }
  }
  return spans.filter((s) => s !== '');
}

/** How many turns a segment is matched against in order: those holding most of its words. */
const CANDIDATES = 3;
const unions = new WeakMap<SourceTok[], Set<string>>();

/** The [start, end) runs of a segment's words that no single turn holds in order. */
function unsaid(
  segment: string,
  turns: SourceTok[][],
  language: Language,
  names: string[],
  attributed: boolean,
): [number, number][] {
  const toks = tokens(segment, language, names);
  const wanted: { start: number; end: number; key: string; glued: boolean }[] = [];
  // Nobody is known to have said a memory stored as one string: no frame names a speaker of it.
  const frame = attributed ? FRAME[language] : new Set<string>();
  for (const [i, t] of toks.entries()) {
    const next = t.cut ? undefined : toks[i + 1];
    const free = frame.has(t.key) || (attributed && t.person && names.includes(t.key));
    const glued =
      wanted.at(-1)?.glued && toks[i - 1] && !toks[i - 1]!.cut && wanted.at(-1)!.start === toks[i - 1]!.start;
    if (t.person && !(free && (!next || frame.has(next.key))))
      wanted.push({
        start: t.start,
        end: next?.end ?? t.end,
        key: `${t.key}+${next?.key ?? '*'}`,
        glued: !!next,
      });
    else if (!free && !glued) wanted.push({ start: t.start, end: t.end, key: t.key, glued: false });
  }
  if (wanted.length === 0) return [];
  let best: boolean[] | undefined;
  // The turns holding the most of the segment's words, first (a bound on the misses): the few best.
  const holds = (turn: SourceTok[]) => {
    let all = unions.get(turn);
    if (!all) {
      all = new Set(turn.flatMap((t) => [...t.keys]));
      unions.set(turn, all);
    }
    let n = 0;
    for (const w of wanted) if (all.has(w.key)) n++;
    return n;
  };
  const ranked =
    turns.length <= CANDIDATES
      ? turns
      : turns
          .map((turn) => ({ turn, n: holds(turn) }))
          .sort((a, b) => b.n - a.n)
          .slice(0, CANDIDATES)
          .map((c) => c.turn);
  for (const turn of ranked) {
    const missing: boolean[] = [];
    let pos = 0;
    for (const w of wanted) {
      let j = pos;
      while (j < turn.length && !turn[j]!.keys.has(w.key)) j++;
      // A reported question moves its auxiliary ("How are your friends?" → "how your friends are").
      if (j === turn.length && AUXILIARY.has(w.key)) {
        missing.push(!turn.some((t) => t.keys.has(w.key)));
        continue;
      }
      missing.push(j === turn.length);
      if (j < turn.length) pos = j + 1;
    }
    if (!best || missing.filter(Boolean).length < best.filter(Boolean).length) best = missing;
    if (!best.includes(true)) return [];
  }
  const runs: [number, number][] = [];
  best!.forEach((miss, i) => {
    if (!miss) return;
    const { start, end } = wanted[i]!;
    const last = runs.at(-1);
    if (last && i > 0 && best![i - 1]) last[1] = end;
    else runs.push([start, end]);
  });
  return runs;
}

/** How a refused stage's reason starts (in lastError, `inspect`, the run's errors). */
export const FAITHFULNESS_REASON = 'faithfulness';

/**
 * A stage of an extractive compressor holding words nobody said: not written, the memory keeps
 * its stage. The message gives counts only, never the words (docs/design.md invariant 6).
 */
export class FaithfulnessGateError extends InvalidModelOutputError {
  readonly gate = FAITHFULNESS_REASON;
}

/** What a memory's stages are checked against: its turns (or its one string, said by nobody) and role card. */
export function faithfulnessSource(memory: Memory, card: RoleCard, language: Language): FaithfulnessSource {
  const { raw } = memory.content;
  return {
    language,
    turns: typeof raw === 'string' ? [{ text: raw }] : raw.map((t) => ({ role: t.role, text: t.text })),
    names: [card.name, card.userName].filter((n): n is string => !!n?.trim()),
    ...(card.userName && { userRole: card.userName }),
  };
}

/** The gate (stage.ts gate()): throws where the output holds a span nobody said. */
export function faithfulnessGate(
  stage: TargetStage,
  memoryId: string,
  output: string,
  source: FaithfulnessSource,
  spent: { usage: Usage; model: string },
): void {
  const spans = inventedSpans(output, source);
  if (spans.length === 0) return;
  throw new FaithfulnessGateError(
    `memory ${memoryId}: ${FAITHFULNESS_REASON}: ${stage.toUpperCase()} holds ${spans.length} span${spans.length === 1 ? '' : 's'} no speaker said; not written`,
    spent,
  );
}
