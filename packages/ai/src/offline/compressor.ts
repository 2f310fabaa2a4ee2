import type { CompressionRequest, Compressor, ModelReply, V1Fields, V1Result, V2Fields } from '@memfade/core';
import { formatV1ForV2, hanShare, measureLength, usableName, v2Target, ZERO_USAGE } from '@memfade/core';
import { anchorPronouns, followPlaces, peopleNames } from './antecedents.js';
import { coreMemory, HIGHLIGHTS, KEY_POINTS } from './core-memory.js';
import { anchorDates } from './dates.js';
import { feelingsOf, readConversation } from './read.js';
import { RULES } from './rules/index.js';
import { analyse, sumOf, type Unit } from './scoring.js';
import { inMemoryScript, markersInSimplified } from './script.js';
import { interests, listItems, rank, select, selection, unique } from './selection.js';
import { atoms, joinPieces, withNeeds } from './statements.js';

const MODEL = 'offline-extractive-1';
const PROMPT_VERSION = 'offline-v3';

/** How much V1 favours short statements: it has room for half the conversation and ranks by information. */
const V1_DENSITY = 0.5;
/** What the user's first statement adds to its worth (it says what the talk is about). */
const OPENER_BONUS = 2;
/** V1 is at least this share of its target's min plus max long (0.5: the middle of its range). */
const V1_FILL = 0.5;

/** The card without a name no memory can write as a speaker (core roles.ts: "你", "说说", "You"). */
function withUsableNames(request: CompressionRequest): CompressionRequest {
  const { name, userName, ...card } = request.roleCard;
  if (usableName(name) === !!name && usableName(userName) === !!userName) return request;
  const names = { ...(usableName(name) && { name }), ...(usableName(userName) && { userName }) };
  return { ...request, roleCard: { ...card, ...names } };
}

/**
 * A deterministic extractive compressor: no network, no tokens. It keeps the statements that tell the most
 * (dates, numbers, names, first-person plans and events, the user's worries), drops small talk, stickers and
 * system turns, and writes what it keeps as a memory: each statement attributed (我 / "I" or the persona's name,
 * 你 / "you" or the user's, never a role label), the topic named, never a fragment cut from what it leans on.
 * V2 is built from V1's most important statements. What only a model could know it leaves empty.
 */
export class OfflineCompressor implements Compressor {
  readonly name = 'offline';
  /** Its stages are what was said: the faithfulness gate checks them (core faithfulness.ts). */
  readonly extractive = true;

  /**
   * `drafts`: answer a V1 request for the V2 draft (V2_DRAFT=with-v1) with one. Off by default: a draft saves a
   * paid call, this compressor costs none, and its V2 from V1 keeps more than from the chat on most sets (docs/eval).
   * `timeZone`: where the product's nights are (SCHEDULE_TZ), the calendar day its dates anchor to.
   */
  constructor(private readonly options: { drafts?: boolean; timeZone?: string } = {}) {}

  async compressV1(given: CompressionRequest): Promise<ModelReply<V1Fields>> {
    const request = withUsableNames(given);
    const { language, roleCard } = request;
    const terms = interests(roleCard);
    // Relative dates carry the day they meant, so the memory still places them when read later.
    const text = anchorDates(request.text, request.createdAt, language, this.options.timeZone);
    const reader = readConversation(text, request);
    const units = analyse(atoms(reader.clauses, true), language, {
      interests: terms,
      isUser: reader.isUser,
      isCompanion: (speaker) => speaker !== undefined && !reader.isUser(speaker),
    });
    // The question naming the topic ("知道悦·美术馆吗？") says what the topic line does: its answer stands, after "看过，" too.
    const opening = units.find((u) => u.question);
    if (reader.topic && opening?.text.includes(reader.topic)) {
      opening.filler = true;
      const freed = new Set([opening]);
      // What it answers says what the topic is (no aside); a talk moving to other places is followed (antecedents.ts).
      for (const u of units)
        if (u.needs && freed.has(u.needs) && delete u.needs)
          u.filler ? freed.add(u) : Object.assign(u, { aside: false });
      if (hanShare(reader.topic) > 0.5) followPlaces(units, reader.topic);
    }
    // A user who opens the talk opens with what it is about ("我们班要选新的班长，我想报名"): no small talk.
    const talk = RULES[language].aboutTheTalk.pattern; // "今天我又来找你聊天啦" says nothing of the user
    const opens = (u: Unit) => !/[?？]/u.test(u.text) && sumOf(u.keys) >= 1 && !talk.test(u.text);
    const opener = units.find((u) => u.line === units[0]?.line && opens(u));
    if (opener && reader.isUser(opener.speaker))
      Object.assign(opener, { filler: false, bonus: opener.bonus + OPENER_BONUS });
    const lines = (list: Unit[]) => joinPieces(reader.writer.lines(list.flatMap((u) => u.parts)), language);
    const people = peopleNames(reader.names, roleCard.name);
    anchorPronouns(units, language, people, lines, (u) => reader.isUser(u.speaker));
    const show = (u: Unit) => lines(withNeeds(u));
    const render = (chosen: Unit[]) =>
      [reader.topicLine, ...reader.writer.lines(chosen.flatMap((u) => u.parts))].filter(Boolean).join('\n');
    const how = selection(reader.topicLine, V1_DENSITY, (u) => lines([u]), render);
    // V1 reaches the middle of its range: at its minimum, it leaves V2 (80% of it at most) too little room.
    const { min, max } = request.targetLength;
    const chosen = select(units, { min: Math.max(min, Math.floor((min + max) * V1_FILL)), max }, how);
    const ranked = unique(rank(chosen, V1_DENSITY)).filter((u) => !u.filler && !u.orphan);
    const lower = request.text.toLowerCase();
    const fields = {
      compressedContent: how.render(chosen),
      keyPoints: listItems(ranked, KEY_POINTS, show),
      emotionalHighlights: feelingsOf(reader, units, language).slice(0, HIGHLIGHTS),
      personalityAdjustment: { emphasized: terms.filter((t) => lower.includes(t)), deemphasized: [] },
    };
    const reply = this.reply(inMemoryScript(fields, request.text, language, roleCard));
    if (!request.draft || !this.options.drafts) return reply;
    // The V2 draft (docs/design.md §4), chosen from every statement of the conversation (V1 at its full
    // length), weighed by this call's V1 key points and highlights, as a model writing both would.
    const { draft: asked, retentionMin: _, ...alone } = request;
    const length = measureLength(request.text);
    const whole = await this.compressV1({ ...alone, targetLength: { min: length, max: 2 * length } });
    const { keyPoints, emotionalHighlights } = reply.fields;
    const all = formatV1ForV2({ ...(whole.fields as V1Result), keyPoints, emotionalHighlights }, language);
    // Its target is V2's from this V1, known here (a model's is not): V2 from the conversation and from
    // V1 are compared at one length (docs/eval "V2 from the whole conversation").
    const targetLength = v2Target(measureLength(reply.fields.compressedContent), asked.range);
    const v2 = await this.compressV2({ ...alone, text: all, targetLength, range: asked.range });
    return { ...reply, draft: v2.fields };
  }

  async compressV2(given: CompressionRequest): Promise<ModelReply<V2Fields>> {
    const request = withUsableNames(given);
    const { text, language, roleCard } = request;
    const read = { ...request, text: markersInSimplified(text, language, roleCard) };
    return this.reply(inMemoryScript(coreMemory(read, this.options.timeZone), text, language, roleCard));
  }

  private reply<T>(fields: T): ModelReply<T> {
    return { fields, usage: ZERO_USAGE, model: MODEL, promptVersion: PROMPT_VERSION };
  }
}
