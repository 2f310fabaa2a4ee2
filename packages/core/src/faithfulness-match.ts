import {
  AUXILIARY,
  agree,
  alternatives,
  elidedSubject,
  OPENING_ADVERBS,
  tokens,
} from './faithfulness-tokens.js';
import type { Language } from './memory.js';

/**
 * How a segment of a stage is matched against the turns of the speaker it is attributed to
 * (faithfulness.ts: never invent): copied whole from one of them, a Chinese quote's words in order,
 * or word by word in order, a person word with the word after it.
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

/** Free where no word of the speaker follows them. */
const FRAME = {
  en: new Set(['you', 'i', 'and', 'that', 'whether', 'if', 'but', 'so', 'then', 'to']),
  zh: new Set(['你', '我', '和', '也', '还', '還']),
};
/** A turn as the stage may say it: each key (a word, or a person word with its next word) and where it stands, in order. */
export type SourceTok = Map<string, number[]>;

/** A turn's tokens as the stage may say them: each person word with its next word (or its inverted auxiliary). */
export function sourceOf(turn: SourceTurn, ctx: FaithfulnessSource, names: string[]): SourceTok {
  const toks = tokens(turn.text, ctx.language, names);
  const own = turn.role === undefined ? undefined : [...names, turn.role].map((n) => n.toLowerCase());
  const at: SourceTok = new Map();
  const put = (key: string, i: number) => {
    const list = at.get(key);
    if (!list) at.set(key, [i]);
    else if (list.at(-1) !== i) list.push(i);
  };
  toks.forEach((t, i) => {
    // A word that names no person is itself (most words: no list made for it).
    if (!t.person) {
      put(t.key, i);
      if (own && elidedSubject(toks, i, ctx.language, turn.text)) {
        // Written before the adverb that opened the statement too ("Just got…" → "Juno just got…").
        let at = i;
        while (at > 0 && OPENING_ADVERBS.has(toks[at - 1]!.key)) at--;
        for (const a of alternatives({ ...t, key: 'i', person: true }, ctx.language, own, turn.text)) {
          put(`${a}+${t.key}`, i);
          if (at < i) put(`${a}+${toks[at]!.key}`, at);
        }
      }
      return;
    }
    const alts = alternatives(t, ctx.language, own, turn.text);
    const after = toks[i + 1];
    const nexts = t.cut || !after ? [''] : alternatives(after, ctx.language, own, turn.text);
    const before = toks[i - 1];
    // "+*": the person word alone, for a stage whose clause ends on it ("…to celebrate us.").
    for (const a of alts) {
      put(`${a}+*`, i);
      for (const n of nexts) put(`${a}+${n}`, i);
      // "Have you found a vet?" is reported as "whether you have found…", "Why doesn't he…?" as "why he doesn't…".
      if (before && !before.cut && ctx.language === 'en') {
        put(`${a}+${agree(before.key)}`, i);
        const aux = toks[i - 2];
        if (before.key === "'t" && aux && !aux.cut) put(`${a}+${agree(aux.key)}`, i);
      }
    }
  });
  return at;
}

/** The first of a key's places at or after `pos` (places ascending), or -1. */
function placeFrom(places: number[], pos: number): number {
  let [lo, hi] = [0, places.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (places[mid]! < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo < places.length ? places[lo]! : -1;
}

/**
 * A Chinese quote its speaker said as it stands (`你说：“你不用一直和我强调哦”。`, the memory's
 * words for a sentence whose 你 is the companion's) is blanked: it is what was said, 我 and 你 as
 * said. A date anchored inside it is blank already (ANCHORED). Any other quote stays one piece,
 * which only a turn quoting the same words holds.
 */
export function quotesSaid(segment: string, turns: SourceTurn[]): string {
  // Its words as said, in order: marks may differ ("，，，，" written "，"), and a gap marked with an
  // ellipsis ("A……B") may leave words out between pieces, each of which was said whole.
  const bare = (text: string) => text.replace(/[\s\p{P}]+/gu, '');
  // A quote its sentence does not close (its mark on the next line) runs to the sentence's end.
  return segment.replace(/“([^”]+)(?:”|$)/gu, (quote, inner: string) => {
    const pieces = inner
      .split(/…+|\.{3,}/u)
      .map(bare)
      .filter(Boolean);
    // Its first letter as the turn had it inside a sentence ("Coding lets me…" quoted from "Plus,
    // coding lets me…"), as verbatim() reads a copied sentence.
    const first = pieces[0] ?? '';
    const flipped = first.charAt(0).toLowerCase() + first.slice(1);
    const holds = (text: string) =>
      holdsAll(text, pieces) || (flipped !== first && holdsAll(text, [flipped, ...pieces.slice(1)]));
    return turns.some((t) => holds(bare(t.text))) ? ' '.repeat(quote.length) : quote;
  });
}

/** Whether a text holds each piece, in order. */
function holdsAll(text: string, pieces: string[]): boolean {
  let at = 0;
  for (const piece of pieces) {
    const found = text.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/** A word's character: a match must not start or end inside a word ("ate" is not in "late"). */
const WORD_CHAR = /[\p{L}\p{N}'’]/u;
/** The punctuation a segment ends on, which the turn may not have there. */
const TRAILING = /[\s\p{P}]+$/u;

/**
 * Whether a turn holds the segment as it is, whole words at both ends: a stage's words copied
 * from its speaker's turn are what was said, read in one pass instead of token by token.
 */
export function verbatim(segment: string, turns: SourceTurn[]): boolean {
  const trimmed = segment.trim().replace(TRAILING, '');
  if ([...trimmed].length < 4) return false;
  // Its first letter as the turn has it: a sentence whose opener was dropped ("However, it may…")
  // starts with a capital ("It may…")…
  const first = trimmed[0]!;
  const other = first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase();
  // …or as the turn had it at a sentence's start ("The story…" written "I said the story…").
  for (const plain of other === first ? [trimmed] : [trimmed, other + trimmed.slice(1)])
    for (const { text } of turns)
      for (let at = text.indexOf(plain); at >= 0; at = text.indexOf(plain, at + 1)) {
        const before = text[at - 1];
        const after = text[at + plain.length];
        const cut = (ch: string | undefined, edge: string) =>
          ch === undefined || !WORD_CHAR.test(ch) || !WORD_CHAR.test(edge) || /\p{Script=Han}/u.test(edge);
        if (cut(before, plain[0]!) && cut(after, plain.at(-1)!)) return true;
      }
  return false;
}

/** How many turns a segment is matched against in order: those holding most of its words. */
const CANDIDATES = 3;

/** The [start, end) runs of a segment's words that no single turn holds in order. */
export function unsaid(
  segment: string,
  turns: SourceTok[],
  language: Language,
  names: string[],
  attributed: boolean,
): [number, number][] {
  const toks = tokens(segment, language, names);
  const lower = names.map((n) => n.toLowerCase());
  const wanted: { start: number; end: number; key: string; glued: boolean }[] = [];
  // Nobody is known to have said a memory stored as one string: no frame names a speaker of it.
  const frame = attributed ? FRAME[language] : new Set<string>();
  for (const [i, t] of toks.entries()) {
    // A reported question's auxiliary moved to its end ("What was the best part for you?" → "what
    // the best part for you was"): the person word before it stands alone, as it did in the turn.
    const moved = toks[i + 1] && AUXILIARY.has(toks[i + 1]!.key) && (toks[i + 1]!.cut || !toks[i + 2]);
    const next = t.cut || (t.person && moved) ? undefined : toks[i + 1];
    const free = frame.has(t.key) || (attributed && t.person && lower.includes(t.key));
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
  const holds = (turn: SourceTok) => {
    let n = 0;
    for (const w of wanted) if (turn.has(w.key)) n++;
    return n;
  };
  const scored = turns.map((turn) => ({ turn, n: holds(turn) })).sort((a, b) => b.n - a.n);
  // Ties at the cut are all tried: in a long chat many turns hold every word ("为什么朵朵不跟我玩",
  // said five times), and the one holding them in order may come after the first three.
  const cut = scored[Math.min(CANDIDATES, scored.length) - 1]?.n ?? 0;
  const ranked = scored.filter((c, i) => i < CANDIDATES || c.n >= Math.max(cut, 1)).map((c) => c.turn);
  for (const turn of ranked) {
    const missing: boolean[] = [];
    let pos = 0;
    for (const [k, w] of wanted.entries()) {
      const places = turn.get(w.key);
      const j = places ? placeFrom(places, pos) : -1;
      // A reported question moves its auxiliary ("How are your friends?" → "how your friends are"),
      // also where the same one stands later ("What was it like when everyone was…" → "what it was
      // like when…": the next word stands before that later one).
      const next = wanted[k + 1] && turn.get(wanted[k + 1]!.key);
      const moved =
        j >= 0 &&
        places![0]! < pos &&
        next !== undefined &&
        placeFrom(next, pos) >= 0 &&
        placeFrom(next, pos) < j;
      if ((j < 0 || moved) && AUXILIARY.has(w.key)) {
        missing.push(!places);
        continue;
      }
      missing.push(j < 0);
      if (j >= 0) pos = j + 1;
    }
    if (!best || missing.filter(Boolean).length < best.filter(Boolean).length) best = missing;
    if (!best.includes(true)) return [];
  }
  // No turn of that speaker at all (a name the stage gives words to who never spoke): none is said.
  best ??= wanted.map(() => true);
  const runs: [number, number][] = [];
  best.forEach((miss, i) => {
    if (!miss) return;
    const { start, end } = wanted[i]!;
    const last = runs.at(-1);
    if (last && i > 0 && best![i - 1]) last[1] = end;
    else runs.push([start, end]);
  });
  return runs;
}
