import { REPORTING_ZH, toTraditional } from './chinese-script.js';
import { InvalidModelOutputError } from './errors.js';
import {
  type FaithfulnessSource,
  quotesSaid,
  type SourceTok,
  type SourceTurn,
  sourceOf,
  unsaid,
  verbatim,
} from './faithfulness-match.js';
import { asWritten } from './faithfulness-tokens.js';
import type { Language, Memory, RoleCard, TargetStage, Usage } from './memory.js';
import { COMPANION_ROLE, SYSTEM_ROLE, USER_ROLE, usableName } from './roles.js';
import { escapeRegExp, visibleText } from './text.js';

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

/** A name's sentence marks, written so in the stage read (same length: its spans are sliced from the stage). */
const masked = (name: string) => name.replace(/[.!?…。！？]/gu, '\u2024');
/** The words that say who said it ("You said", "小满问起"), and the topic line ("我们聊到了…", "We talked about"). */
const REPORT = {
  en: "(?:said|asked|told|wondered|worried|mentioned|shared|talked about)(?: (?:that|whether|if|about)(?![\\w'’]))?",
  // In traditional characters too: the compressor writes them so for a traditional memory (chinese-script.ts).
  zh: `(?:${REPORTING_ZH.flatMap((w) => [...new Set([w, toTraditional(w)])]).join('|')})`,
};
/** The dates the compressor anchors a relative one to, in brackets (offline dates.ts). */
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const ANCHORED = new RegExp(
  `（(?:\\d{4}年)?\\d{1,2}月(?:\\d{1,2}日)?(?:那周)?）|\\((?:week of )?(?:\\d{1,2} )?${MONTH}(?: \\d{4})?\\)|[（(]\\d{4}年?[)）]`,
  'gu',
);

/** The turns a stage's segment may come from: its speaker's, or anyone's where it names none. */
function turnsOf(who: string | undefined, ctx: FaithfulnessSource): SourceTurn[] {
  if (who === undefined) return ctx.turns;
  const isUser = (t: SourceTurn) => t.role === undefined || t.role === ctx.userRole || USER_ROLE.test(t.role);
  const w = who.toLowerCase();
  if (w === 'you' || w === '你') return ctx.turns.filter(isUser);
  if (w === 'i' || w === '我') return ctx.turns.filter((t) => !isUser(t));
  const labelled = ctx.turns.filter((t) => t.role !== undefined && masked(t.role).toLowerCase() === w);
  if (labelled.length) return labelled;
  // The user's name where no turn bears it. Another name (the role card's) may be either speaker's
  // as the compressor reads the conversation (a card named as its user): every turn.
  if (w === ctx.userRole?.toLowerCase()) return ctx.turns.filter(isUser);
  return ctx.turns;
}

/** What a source is checked with, built once per conversation: its names, the marker, its turns' tokens. */
interface Prepared {
  ctx: FaithfulnessSource;
  names: string[];
  /** The names with a sentence mark inside, as given ("Dr. Ava"): masked in the stage read. */
  marks: string[];
  marker: RegExp;
  attributed: boolean;
  /** Each speaker's turns as tokens ('' for every turn), built when a sentence first names them. */
  sources: Map<string, SourceTok[]>;
  /** Each turn's tokens, built once for every speaker key that holds it. */
  turnToks: Map<SourceTurn, SourceTok>;
  /** Stages already checked: a stage is checked by the gate, then again by `memfade eval`. */
  results: Map<string, string[]>;
}

/**
 * The last few conversations checked, by content (a new source object for the same conversation
 * hits): V1 and V2 share their turns' tokens, and the eval's measure reuses the gate's answer.
 */
const prepared = new Map<string, Prepared>();
const PREPARED_MAX = 8;

function prepare(source: FaithfulnessSource): Prepared {
  // A user role that labels no turn, or that USER_ROLE names, adds nothing (turnsOf): one source.
  const { userRole: role } = source;
  const userRole = role && !USER_ROLE.test(role) && source.turns.some((t) => t.role === role) ? role : '';
  const key = [
    source.language,
    userRole,
    ...source.names,
    '',
    ...source.turns.flatMap((t) => [t.role ?? '\u0002', t.text]),
  ].join('\u0001');
  const hit = prepared.get(key);
  if (hit) {
    prepared.delete(key);
    prepared.set(key, hit);
    return hit;
  }
  // Read as the compressor reads it (text.ts visibleText): no zero-width character splits a word.
  const ctx = { ...source, turns: source.turns.map((t) => ({ ...t, text: visibleText(t.text) })) };
  // The card's names as written, whatever they are ("Assistant": the compressor writes it), and the
  // turns' labels but role words; a full stop inside a name ends no sentence ("Dr. Ava said", masked).
  const labels = ctx.turns.flatMap((t) =>
    t.role && ![USER_ROLE, COMPANION_ROLE, SYSTEM_ROLE].some((r) => r.test(t.role!)) ? [t.role] : [],
  );
  const given = [...new Set([...ctx.names, ...labels])].filter((n) => n.trim() !== '');
  const names = given.map(masked);
  const who = `(${[...names.map(escapeRegExp), ctx.language === 'zh' ? '我们|我們|你|我' : 'you|i|he|she|we'].join('|')})`;
  // "X和Y聊到了…", "X and Y talked about…": the first name here, the second the reporter's own.
  const and = ctx.language === 'zh' ? `(?:${who}和)?` : `(?:${who} and )?`;
  // A request is reported as one: "Mia told you (not) to…" (offline lines.ts).
  const told = `(?: told (?:${who.slice(1, -1)})(?: not)? to)`;
  const marker = new RegExp(
    ctx.language === 'zh'
      ? // Where a speaker's words may start, as in English: "Juno会尝试着去做一些你说的事情" names no new speaker.
        `(?<=(?:^|[\n.!?…。！？,，;；:：、“”"（(）)\\s]))${and}${who}${REPORT.zh}`
      : // The answer joined to its question: "X asked…, and Caroline drew it" is Caroline's.
        // Its start a lookbehind, not \b: a name in another script ("小暖 said") has no ASCII word edge;
        // and where a speaker's words may start (a sentence, a clause, after "and"): "…when you shared it
        // with them" inside a reported question names no new speaker.
        `(?<=(?:^|[\n.!?…。！？,，;；:：“”"(]|\\band)\\s*)${and}${who}(?:${told}| ${REPORT.en})\\b|, and ${who}(?= (?!${REPORT.en}|told\\b)[a-z])`,
    'giu',
  );
  const attributed = ctx.turns.some((t) => t.role !== undefined);
  const made = {
    ctx,
    names,
    marks: given.filter((n) => masked(n) !== n),
    marker,
    attributed,
    sources: new Map(),
    turnToks: new Map(),
    results: new Map(),
  };
  prepared.set(key, made);
  if (prepared.size > PREPARED_MAX) prepared.delete(prepared.keys().next().value!);
  return made;
}

/**
 * The spans of `stage` that nobody said (empty: the stage is faithful), as quoted text. Each
 * sentence is split where a speaker is named with a reporting verb; what follows is checked
 * against that speaker's turns, what no speaker is named for against every turn.
 */
export function inventedSpans(stage: string, source: FaithfulnessSource): string[] {
  const p = prepare(source);
  const known = p.results.get(stage);
  if (known) return [...known];
  const { ctx, names, marker, attributed, sources, turnToks } = p;
  const toksOf = (t: SourceTurn) => {
    let toks = turnToks.get(t);
    if (!toks) {
      toks = sourceOf(t, ctx, names);
      turnToks.set(t, toks);
    }
    return toks;
  };
  let text = stage.replace(ANCHORED, (m) => ' '.repeat(m.length));
  for (const name of p.marks) text = text.replaceAll(name, masked(name));
  const spans: string[] = [];
  // An ellipsis ends a sentence in English too: the compressor marks a gap with one ("…with the… You
  // went…"), and what follows it may be another turn's; so does a Chinese line's 。 in an English memory,
  // and an English line's full stop in a Chinese one where no Latin letter or digit follows it
  // ("…exhausted.听摇滚音乐", "…Endgame.\"阿光…", "…valuable.《…》": not inside 3.5 or example.com).
  // A quote's closing mark after its end is the quote's ("…又问你：“你什么时候结婚？”你觉得…"): read apart, the
  // quote would be unclosed and its words read as the quoting speaker's own, rewritten.
  const sentences =
    ctx.language === 'zh'
      ? /(?:[^。！？!?….]|\.(?=[A-Za-z0-9]))+(?:[。！？!?…]|\.(?![A-Za-z0-9]))*[”’」』]*/gu
      : /[^.!?…。！？]+[.!?…。！？]*[”’"]?/gu;
  // The markers, read over the whole stage at once (none spans a sentence's end), then by sentence.
  // A marker inside a quote is the quoted speaker's words ("Jon asked, \"…the festival I told you
  // about?\""), not a new speaker: what follows is still the quoting speaker's.
  const quotes = [...text.matchAll(/"[^"]*"|“[^”]*”/g)].map((q) => [q.index, q.index + q[0].length]);
  const quoted = (at: number) => quotes.some(([from, to]) => at > from! && at < to!);
  // Nor is one right after another's end: the first speaker's words start there ("Jolene问你告诉
  // Jolene一下", a question asked of the other: its 告诉 is what Jolene asked).
  const written = (m: RegExpMatchArray) => m.slice(1, 4).every((w) => w === undefined || asWritten(w, names));
  const all = attributed ? [...text.matchAll(marker)].filter((m) => !quoted(m.index) && written(m)) : [];
  const marks = all.filter((m, i) => i === 0 || all[i - 1]!.index + all[i - 1]![0].length !== m.index);
  for (const sentence of text.matchAll(sentences)) {
    const at = sentence.index;
    const bounds = [{ start: 0, who: undefined as string | undefined }];
    for (const m of marks) {
      if (m.index < at || m.index + m[0].length > at + sentence[0].length) continue;
      // "X和Y聊到了…", "X and Y talked about…": the topic line names no one speaker.
      const named = m[2] ?? m[3];
      const subject = m[1] || /^(?:我们|we)$/i.test(named!) ? undefined : named;
      bounds.push({ start: m.index - at, who: subject });
      bounds.push({ start: m.index - at + m[0].length, who: subject });
    }
    for (const [i, b] of bounds.entries()) {
      const end = bounds[i + 1]?.start ?? sentence[0].length;
      if (i % 2 === 1) continue;
      // Right after a marker, another ("我说你说的故事…"): the words to the end may be the first
      // speaker's, copied whole, the second "marker" theirs too.
      if (end <= b.start) {
        if (b.start > 0 && verbatim(sentence[0].slice(b.start), turnsOf(b.who, ctx))) break;
        // A sentence opening on one that a turn holds whole, the "marker" its own words
        // ("你说的故事可以启发人们…", the companion's), is read as a sentence naming no speaker is.
        if (b.start === 0 && i === 0 && verbatim(sentence[0], ctx.turns)) break;
        continue;
      }
      const segment = quotesSaid(sentence[0].slice(b.start, end), turnsOf(b.who, ctx));
      // Words one of the speaker's turns holds as they are need no token-by-token reading; held up
      // to the sentence's end, a "marker" after them is their words too ("找不到你问一下路人").
      if (verbatim(sentence[0].slice(b.start), turnsOf(b.who, ctx))) break;
      if (verbatim(segment, turnsOf(b.who, ctx))) continue;
      const key = b.who?.toLowerCase() ?? '';
      let turns = sources.get(key);
      if (!turns) {
        turns = turnsOf(b.who, ctx).map(toksOf);
        sources.set(key, turns);
      }
      for (const [s, e] of unsaid(segment, turns, ctx.language, names, attributed))
        spans.push(stage.slice(at + b.start + s, at + b.start + e).trim());
    }
  }
  const found = spans.filter((s) => s !== '');
  p.results.set(stage, found);
  return [...found];
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
    // A label as the compressor reads it: " user " is the user (the stage's hash keeps it as stored).
    turns:
      typeof raw === 'string' ? [{ text: raw }] : raw.map((t) => ({ role: t.role.trim(), text: t.text })),
    names: [card.name, card.userName].filter(usableName),
    ...(usableName(card.userName) && { userRole: card.userName }),
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
