import type {
  CompressionRequest,
  Compressor,
  ModelReply,
  RoleCard,
  V1Fields,
  V1Result,
  V2Fields,
} from '@memfade/core';
import { formatV1ForV2, measureLength, ZERO_USAGE } from '@memfade/core';
import { anchorPronouns, peopleNames } from './antecedents.js';
import { anchorDates } from './dates.js';
import { fit } from './fit.js';
import { emotionsIn, POSITIVE } from './lexicon.js';
import { asksWithoutWorry, isConcern } from './questions.js';
import { feelingsOf, readConversation, readStage, type Stage } from './read.js';
import { residueOf } from './residue.js';
import { CAPPED_SLACK, shorterThan } from './room.js';
import { RULES } from './rules/index.js';
import { analyse, namesIn, type Unit } from './scoring.js';
import { rank, type Selection, select, withNeeds, worthOf } from './selection.js';
import { atoms, joiner } from './statements.js';
import { topicLine, topicOf } from './topic.js';

const MODEL = 'offline-extractive-1';
const PROMPT_VERSION = 'offline-v3';

const TEXT = {
  zh: { forgotten: '抽取式压缩未选中的细节', interests: '与人格相关：', listSep: '、' },
  en: {
    forgotten: 'details the extractive compressor did not keep',
    interests: 'Relates to: ',
    listSep: ', ',
  },
} as const;

/** Words that speak to or of the user: a companion's line with one is about them. */
const ADDRESSED = { zh: RULES.zh.addressed.pattern, en: RULES.en.addressed.pattern };
/** The companion saying it is an AI: "AI" reads as a name (a fact), and 你 as addressed to the user. */
const AI_SELF = { zh: RULES.zh.aiSelf.pattern, en: RULES.en.aiSelf.pattern };
/** A date, a number or a name among what a statement tells (scoring.ts FACT, NAME). */
const factIn = (u: Unit) => [...u.keys.values()].some((weight) => weight >= 4);

/** What V2 adds to the worth of a statement V1 made a key point, or a highlight (the user's feeling or worry). */
const KEY_POINT_BONUS = 1;
const FEELING_BONUS = 2;
/**
 * A user's question as V1 reported it ("Emily asked whether…", "你担心…", after what they said
 * with it: "你在看…，你问我…"; not the companion's "I wondered…", "我问…"): what the user needed,
 * worth as much to V2 as it was to V1 (scoring.ts).
 */
const REPORTED_CONCERN = { zh: RULES.zh.reportedConcern.pattern, en: RULES.en.reportedConcern.pattern };
const REPORTED_CONCERN_BONUS = 4;
/** A worry or a painful feeling among the highlights: what a companion must not forget. */
const WORRY_BONUS = 4;

/**
 * A V1 with more key points than this many chunks give (a conversation of several chunks, stage.ts
 * mergeV1) is summarised from its key points alone: hierarchically, each chunk's most important.
 */
const V1_IN_PARTS = 2;

/** How many statements each list holds. */
const KEY_POINTS = 5;
const HIGHLIGHTS = 3;

/**
 * How much V1 and V2 favour short statements: V1 has room for half the conversation and ranks by
 * information; V2 has a few hundred characters and ranks by information per character.
 */
const V1_DENSITY = 0.5;
const V2_DENSITY = 1;

/** V1 is at least this share of its target's min plus max long (0.5: the middle of its range). */
const V1_FILL = 0.5;

/**
 * V2 keeps whole sentences, unless one would take more than this share of its room (then clauses);
 * a sentence of up to WHOLE_SENTENCE code points is kept whole in any room.
 */
const WHOLE_SENTENCE_SHARE = 0.4;
const WHOLE_SENTENCE = 40;
/**
 * Shares of V2's room a sentence is kept whole up to, tried in turn when a capped V2 ends under
 * its range (0: every sentence by clause).
 */
const SHORTER_SENTENCE_SHARES = [0.25, 0.15, 0];
/**
 * What a statement the first selection kept is worth more to the fit that reaches V2's configured
 * range (fit.ts): it changes no more than it must, and keeps the user's feelings,
 * worries and questions wherever a set that reaches the range can.
 */
const KEPT = 3;
const NEEDED_KEPT = 100;

/** A unit that is a whole sentence, not a clause cut from one ("I said certainly,"). */
const sentence = (u: Unit) => u.parts[0]!.first && /[。！？…!?.]["'”’」』）)]*$/u.test(u.text.trim());

/** The persona's interests as lowercase terms: hobbies and personality words from the role card. */
function interests(card: RoleCard): string[] {
  return [card.hobbies, card.personality, ...(card.values ?? [])]
    .filter((v): v is string => Boolean(v))
    .flatMap((v) => v.split(/[，,、;；/]+|\s+and\s+/))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v.length >= 2);
}

/** Drops statements whose text repeats a kept one (a fact said twice). */
function unique(units: Unit[]): Unit[] {
  const seen = new Set<string>();
  return units.filter((u) => {
    const key = u.text.replace(/[\p{P}\s]+/gu, '');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The units `keep` accepts whose statements they lean on are kept too, in order. */
function closed(units: Unit[], keep: (u: Unit) => boolean): Unit[] {
  const kept = new Set<Unit>();
  for (const u of units) if (keep(u) && (!u.needs || kept.has(u.needs))) kept.add(u);
  return units.filter((u) => kept.has(u));
}

/** Each unit's length shown alone, measured once: what select() estimates a stage's length with. */
function costOf(show: (u: Unit) => string): (u: Unit) => number {
  const cache = new Map<Unit, number>();
  return (u) => {
    let cost = cache.get(u);
    if (cost === undefined) {
      cost = measureLength(show(u)) + 1;
      cache.set(u, cost);
    }
    return cost;
  };
}

/**
 * A deterministic extractive compressor: no network, no tokens. It keeps the statements of the
 * memory that tell the most (dates, numbers, names, first-person plans and events, the user's
 * worries) and drops small talk, stickers and system turns. What it keeps it writes as a memory:
 * each statement attributed (the companion is 我 / "I" or the persona's name, the user 你 /
 * "you" or their name, never a role label), questions as the concern behind them, the topic
 * named, and never a fragment cut from what it leans on. V2 is built from V1's most important
 * statements. It leaves empty what only a model could know (what the persona would de-emphasise).
 */
export class OfflineCompressor implements Compressor {
  readonly name = 'offline';
  /** Its stages are what was said: the faithfulness gate checks them (core faithfulness.ts). */
  readonly extractive = true;

  /**
   * `drafts`: answer a V1 request that asks for the V2 draft (V2_DRAFT=with-v1) with one. Off by
   * default: the draft saves a paid call, and this compressor costs nothing, while its V2 from V1
   * keeps more than its V2 from the whole conversation on 6 of the 7 eval sets (docs/eval).
   */
  constructor(private readonly options: { drafts?: boolean } = {}) {}

  async compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>> {
    const { language, roleCard } = request;
    const terms = interests(roleCard);
    // Relative dates carry the day they meant, so the memory still places them when read later.
    const text = anchorDates(request.text, request.createdAt, language);
    const reader = readConversation(text, language, roleCard, request.unattributed);
    const topic = topicOf(reader.clauses, language);
    // "我们聊到了…" says who talked: nobody is known to have said a memory stored as one string.
    const header =
      topic && !request.unattributed ? topicLine(topic, reader.voice, language, reader.named) : '';
    const units = analyse(atoms(reader.clauses, true), language, { interests: terms, isUser: reader.isUser });
    const lines = (list: Unit[]) => reader.writer.lines(list.flatMap((u) => u.parts)).join(joiner(language));
    anchorPronouns(units, language, peopleNames(reader.names, roleCard.name), (u) => lines([u]));
    const show = (u: Unit) => lines(withNeeds(u));
    const how: Selection = {
      cost: costOf((u) => lines([u])),
      density: V1_DENSITY,
      base: header ? measureLength(header) + 1 : 0,
      render: (chosen) =>
        [header, ...reader.writer.lines(chosen.flatMap((u) => u.parts))].filter(Boolean).join('\n'),
    };
    // V1 fills at least the middle of its range: a V1 at its minimum leaves V2 (at most 80% of it)
    // too little room for V2's own range on a conversation of a few hundred characters.
    const { min, max } = request.targetLength;
    const chosen = select(units, { min: Math.max(min, Math.floor((min + max) * V1_FILL)), max }, how);
    const ranked = unique(rank(chosen, V1_DENSITY)).filter((u) => !u.filler && !u.orphan);
    const lower = request.text.toLowerCase();
    const reply = this.reply({
      compressedContent: how.render(chosen),
      keyPoints: ranked.slice(0, KEY_POINTS).map(show),
      emotionalHighlights: feelingsOf(reader, units, language).slice(0, HIGHLIGHTS),
      personalityAdjustment: { emphasized: terms.filter((t) => lower.includes(t)), deemphasized: [] },
    });
    if (!request.draft || !this.options.drafts) return reply;
    // The V2 draft (docs/design.md §4), from the whole conversation: V2 chosen from every statement
    // of it (V1 written at its full length), not from the V1 just chosen.
    const { draft: asked, retentionMin: _, ...alone } = request;
    const length = measureLength(request.text);
    const whole = await this.compressV1({ ...alone, targetLength: { min: length, max: 2 * length } });
    const all = formatV1ForV2(whole.fields as V1Result, language);
    const { targetLength, range } = asked;
    const v2 = await this.compressV2({ ...alone, text: all, targetLength, range });
    return { ...reply, draft: v2.fields };
  }

  async compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>> {
    const { language, roleCard } = request;
    const terms = interests(roleCard);
    // V2 input is V1's text with its key points and highlights (docs/design.md §4); given a
    // conversation instead, it is first written as V1 writes it, whole.
    const stage: Stage = readStage(
      anchorDates(request.text, request.createdAt, language),
      language,
      roleCard,
      request.unattributed,
    );
    const { clauses } = stage;
    // V1's length as the pipeline measures it (its topic line and lines, one a line: stage.ts caps
    // V2 at V2_SHARE_OF_V1 of it); prose joins them without the line breaks.
    const whole = measureLength([stage.topicLine, ...stage.lines].filter(Boolean).join('\n'));
    const target = shorterThan(whole, request.targetLength);
    // V1's key points, and above all the user's feelings and worries (its highlights), are its
    // most important statements.
    const squeeze = (k: string) => k.replace(/[\p{P}\s]+/gu, '');
    const keyPoints = stage.keyPoints.map(squeeze);
    const feelings = stage.feelings.map(squeeze);
    const parts = stage.keyPoints.length > V1_IN_PARTS * KEY_POINTS;
    const header = stage.topic ? stage.topicLine : '';
    const body = (chosen: Unit[]) => stage.prose(chosen.flatMap((u) => u.parts));
    const show = (u: Unit) => body(withNeeds(u));
    const render = (chosen: Unit[]) => {
      const text = body(chosen);
      // The topic line only where the core memory does not name the topic already.
      return header && !text.includes(stage.topic!) ? header + joiner(language) + text : text;
    };
    // Who a he or she may be (antecedents.ts): the people the stage names, not the companion.
    const people = peopleNames([...stage.people, ...namesIn(clauses)], roleCard.name);
    /** The core memory of statements up to `upTo` code points whole (longer sentences by clause). */
    const essential = new Set<string>();
    const compose = (upTo: number, goal: { min: number; max: number }, filler = true) => {
      const analysed = analyse(atoms(clauses, false, { upTo }), language, {
        interests: terms,
        ignore: stage.said,
        people: stage.people,
      });
      const anchors = anchorPronouns(analysed, language, people, (u) => body([u]));
      const among = (u: Unit, list: string[]) => {
        const core = squeeze(u.text);
        return core.length > 1 && list.some((h) => h.includes(core));
      };
      // A whole sentence that holds a highlight ("Juno asked whether you still visit the farm, and
      // you said not since she passed away in 2019." holds "You said not since she passed away…").
      const holds = (u: Unit, list: string[]) => {
        const core = squeeze(u.text).toLowerCase();
        return list.some((h) => h.length > 4 && core.includes(h.toLowerCase()));
      };
      // V2 holds no question, no repeat, and no statement whose antecedent stays behind; of a
      // long V1 (a long conversation, summarised chunk by chunk), only its key points and
      // highlights: the most important statements of each part (docs/design.md §4).
      // A question the core memory cannot keep as such, unless the pain someone answered it with
      // (a loss, a fear) travels in it or leans on it ("Juno asked whether you still visit the farm, and you
      // said not since she passed away in 2019."): then it carries that answer, worth nothing of
      // its own.
      const asks = (text: string) => asksWithoutWorry(text, language, roleCard.name);
      const pained = (text: string) => emotionsIn(text, language).some((e) => !POSITIVE.has(e));
      const answered = (u: Unit) => u.parts.slice(1).some((p) => pained(p.text));
      const carriers = new Set<Unit | undefined>([
        ...analysed.filter((u) => pained(u.text) && !asks(u.text)).map((u) => u.needs),
        ...anchors,
      ]);
      // What a carrier leans on carries it too ("…you said it reminded you of your grandma's farm"
      // answered "Juno asked whether you did take any photos").
      for (const carrier of [...carriers]) for (let u = carrier?.needs; u; u = u.needs) carriers.add(u);
      const reported = (u: Unit) => asks(u.text) && !answered(u);
      const units = closed(
        unique(analysed),
        (u) =>
          !u.orphan &&
          (!reported(u) || carriers.has(u)) &&
          !u.question &&
          !/[?？]/u.test(u.text) &&
          (filler || !u.filler || sentence(u)) &&
          // The companion saying it is an AI ("我是你的AI伴侣", "I'm your AI companion") is no
          // memory of the user's, not even to reach V2's length.
          !(stage.ownWords(u.parts[0]!) && AI_SELF[language].test(u.text)) &&
          (!parts || among(u, keyPoints) || among(u, feelings)),
      );
      for (const u of units) {
        // The companion's talk about itself ("我还爱收集贝壳呢", "I'm your AI companion."), no fact
        // in it: worth nothing to the user's memory, kept only to reach its length (the user first,
        // docs/design.md §4).
        if (stage.ownWords(u.parts[0]!) && !ADDRESSED[language].test(u.text) && !factIn(u)) {
          u.filler = true;
          u.keys = new Map();
        }
        if (reported(u)) {
          u.question = true;
          continue;
        }
        const felt =
          among(u, feelings) || holds(u, feelings)
            ? isConcern(u.text, language)
              ? WORRY_BONUS
              : FEELING_BONUS
            : 0;
        const asked = REPORTED_CONCERN[language].test(u.text) ? REPORTED_CONCERN_BONUS : 0;
        u.bonus += (among(u, keyPoints) ? KEY_POINT_BONUS : 0) + felt + asked;
        if (felt || asked) essential.add(squeeze(u.text));
      }
      // The user's pain (a loss, a fear, a worry V1 highlighted) is what the core memory is about:
      // it goes in first, with what it leans on (docs/design.md §4).
      const core = rank(
        units.filter((u) => !u.question && (among(u, feelings) || holds(u, feelings)) && pained(u.text)),
        V2_DENSITY,
      )[0];
      const how: Selection = {
        cost: costOf((u) => body([u])),
        density: V2_DENSITY,
        base: header ? measureLength(header) + 1 : 0,
        render,
        ...(core && { first: core }),
      };
      const chosen = select(units, goal, how);
      return { units, chosen, length: measureLength(render(chosen)), how };
    };
    const sentences = Math.max(target.max * WHOLE_SENTENCE_SHARE, WHOLE_SENTENCE);
    const first = compose(sentences, target);
    let { units, chosen, length } = first;
    // A longer core memory may drop what the first kept, but never the user's feelings, worries
    // and questions (essential): filling its range is worth less than what the user needed.
    const needed = first.chosen.filter((u) => essential.has(squeeze(u.text))).map((u) => squeeze(u.text));
    const keepsNeeded = (list: Unit[]) => {
      const text = squeeze(render(list));
      return needed.every((n) => text.includes(n));
    };
    // Capped by a short V1, the room V1 leaves is used (shorterThan), by whole sentences or
    // informative clauses ("I said certainly," fills no memory), then by clauses where whole
    // sentences are too long to fit: the first that reaches it, else the longest, each only where
    // it tells more than the one before (a longer V2 that tells less is no better).
    const room = target.capped ? { min: target.max - CAPPED_SLACK, max: target.max } : undefined;
    for (const share of room ? [WHOLE_SENTENCE_SHARE, ...SHORTER_SENTENCE_SHARES] : []) {
      if (length >= room!.min) break;
      const upTo = share ? Math.max(target.max * share, WHOLE_SENTENCE) : 0;
      const fuller = compose(upTo, room!, false);
      const more = worthOf(fuller.chosen) > worthOf(chosen);
      if (more && fuller.length > length && fuller.length <= target.max && keepsNeeded(fuller.chosen))
        ({ units, chosen, length } = fuller);
    }
    // Still under the configured range (request.range: stage.ts lowered the minimum it asks for)
    // although V1 leaves room for it: the statements that reach it, whole sentences, else clauses
    // (finer lengths), changing what was kept no more than they must (docs/design.md §4).
    const range = request.range;
    const kept = new Set(chosen);
    const extra = (u: Unit) => (kept.has(u) ? (essential.has(squeeze(u.text)) ? NEEDED_KEPT : KEPT) : 0);
    for (const whole of range && range.min <= target.max ? [true, false] : []) {
      if (length >= range!.min) break;
      const from = whole ? first : compose(0, target, false);
      const goal = { min: range!.min, max: target.max };
      const fitted = fit(from.units, goal, from.how, extra, joiner(language).length);
      if (fitted && keepsNeeded(fitted))
        ({ units, chosen, length } = { ...from, chosen: fitted, length: measureLength(render(fitted)) });
    }
    const ranked = rank(chosen, V2_DENSITY).filter((u) => !u.filler);
    const left = units.filter((u) => !chosen.includes(u));
    const dropped = rank(
      left.filter((u) => !u.filler),
      V2_DENSITY,
    );
    const matched = terms.filter((t) => request.text.toLowerCase().includes(t));
    return this.reply({
      coreMemory: render(chosen),
      coreMemoryPoints: ranked.slice(0, 3).map(show),
      memoryTraces: {
        clear: ranked.slice(0, 2).map(show),
        fuzzy: ranked.slice(2, 5).map(show),
        vague: dropped.slice(0, 3).map(show),
      },
      forgotten: {
        details: dropped.slice(3, 6).map(show),
        reason: left.length ? TEXT[language].forgotten : '',
      },
      emotionalResidue: residueOf(stage.feelings, stage.userStatements, language),
      personalityNotes: matched.length ? TEXT[language].interests + matched.join(TEXT[language].listSep) : '',
    });
  }

  private reply<T>(fields: T): ModelReply<T> {
    return { fields, usage: ZERO_USAGE, model: MODEL, promptVersion: PROMPT_VERSION };
  }
}
