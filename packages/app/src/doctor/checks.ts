import { FUTURE_DATE_TOLERANCE_MS } from '@memfade/core';
import type { CanonicalMemory, CreationDates, DateFormat, IndexCheck, Mapping } from '@memfade/db';
import type { CardRefusal } from './survey.js';

/**
 * The mistakes an adoption makes that memfade would otherwise take at their word (issue 28): dates
 * in the wrong unit, role cards core refuses, conversation roles the mapping does not map, and the
 * indexes memfade leaves to the operator on the product's collections. Pure: diagnose.ts
 * gathers the inputs (read-only); the CLI prints the report.
 */

/** Dates before this are no product's memories: a unit mistake (1970) or a bad field. */
export const DATE_FLOOR = new Date('2000-01-01T00:00:00.000Z');

/** The product's creation dates as doctor reports them, and what is wrong with them. */
export interface DatesReport {
  collection: string;
  field: string;
  format: DateFormat;
  /** Documents whose creation date has the mapped format's type. */
  dated: number;
  oldest?: { date: string | null; stored: unknown; id: string };
  newest?: { date: string | null; stored: unknown; id: string };
  /** Dated before 2000, and more than a day ahead of now. */
  before2000: number;
  future: number;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function datesReport(dates: CreationDates): DatesReport {
  const end = (e: CreationDates['oldest']) => e && { date: iso(e.date), stored: e.stored, id: e.id };
  return {
    collection: dates.collection,
    field: dates.path,
    format: dates.format,
    dated: dates.dated,
    ...(dates.oldest && { oldest: end(dates.oldest) }),
    ...(dates.newest && { newest: end(dates.newest) }),
    before2000: dates.before,
    future: dates.after,
  };
}

/** The ceiling doctor checks dates against: what parseMemory refuses as a date in the future. */
export const dateCeiling = (now: Date) => new Date(now.getTime() + FUTURE_DATE_TOLERANCE_MS);

const plausible = (ms: number, now: Date) => ms >= DATE_FLOOR.getTime() && ms <= dateCeiling(now).getTime();

/** The likely unit mistake behind an out-of-range stored date, or undefined when none fits. */
function unitMistake(format: DateFormat, stored: unknown, now: Date): string | undefined {
  if (format === 'epoch-millis' && typeof stored === 'number' && plausible(stored * 1000, now))
    return 'the values are epoch seconds mapped as epoch-millis: set mapping.memory.createdAt.format: epoch-seconds';
  if (format === 'epoch-seconds' && typeof stored === 'number' && plausible(stored, now))
    return 'the values are epoch milliseconds mapped as epoch-seconds: set mapping.memory.createdAt.format: epoch-millis';
  if (format === 'date' && stored instanceof Date && plausible(stored.getTime() * 1000, now))
    return 'the product wrote epoch seconds where BSON dates take milliseconds (new Date(seconds)): fix the dates in the product data';
  if (format === 'date' && stored instanceof Date && plausible(stored.getTime() / 1000, now))
    return 'the product wrote epoch milliseconds as seconds (new Date(ms * 1000)): fix the dates in the product data';
  return undefined;
}

/**
 * Errors (doctor exits 1) for creation dates before 2000 or more than a day ahead, naming the likely
 * mistake. Judged before the report is printed: `stored` is the value as read (a Date, a number).
 */
export function judgeDates(dates: DatesReport, now: Date): string[] {
  const errors: string[] = [];
  const where = `mapping.memory.createdAt (${dates.field}, ${dates.format})`;
  const shown = (e: NonNullable<DatesReport['oldest']>) =>
    `${e.date ?? 'unreadable'} (stored ${JSON.stringify(e.stored)}, memory ${e.id})`;
  if (dates.before2000 > 0 && dates.oldest) {
    const mistake = unitMistake(dates.format, dates.oldest.stored, now);
    errors.push(
      `${where}: ${dates.before2000} of ${dates.dated} memories are dated before 2000, the oldest ${shown(dates.oldest)}; ` +
        `${mistake ?? 'check the mapped field and the dates the product writes'}. ` +
        'As mapped, each is due tonight and goes from raw to V2 in one job.',
    );
  }
  if (dates.future > 0 && dates.newest) {
    const mistake = unitMistake(dates.format, dates.newest.stored, now);
    errors.push(
      `${where}: ${dates.future} of ${dates.dated} memories are dated more than a day ahead, the newest ${shown(dates.newest)}; ` +
        `${mistake ?? 'check the mapped field and the clock or time zone the product writes dates with'}. ` +
        'As mapped, each fails as bad input (a date in the future) and is not compressed.',
    );
  }
  return errors;
}

/** Role cards core refuses, grouped by field and reason: the field, a value, what is expected. */
export interface CardProblem {
  /** The field's path in the product's card documents, and the mapping key naming it. */
  field: string;
  key: string;
  /** A value found there (JSON), and what core expects instead. */
  value: string;
  expected: string;
  /** Distinct cards with this problem, sampled memories that use them, and one card's `_id`. */
  cards: number;
  memories: number;
  example: string;
}

export function cardProblems(refusals: CardRefusal[], mapping: Mapping): CardProblem[] {
  const paths = 'paths' in mapping.roleCard ? (mapping.roleCard.paths as Record<string, string>) : {};
  const groups = new Map<string, CardProblem & { ids: Set<string> }>();
  for (const r of refusals) {
    const id = `${r.field}\0${r.reason}`;
    const group = groups.get(id) ?? {
      field: paths[r.field] ?? r.field,
      key: `mapping.roleCard.${r.field}`,
      value: r.value === undefined ? 'missing' : JSON.stringify(r.value),
      expected: r.reason,
      cards: 0,
      memories: 0,
      example: r.cardId,
      ids: new Set<string>(),
    };
    group.ids.add(r.cardId);
    group.cards = group.ids.size;
    group.memories++;
    groups.set(id, group);
  }
  return [...groups.values()].map(({ ids: _, ...problem }) => problem);
}

/** What happens to a memory whose card core refuses: said once, the same for every field. */
export const CARD_PROBLEM_EFFECT =
  'memfade fails each memory of such a card as bad input (its reason recorded, nothing written) until the card is fixed';

/** A conversation role that is neither user nor assistant once the mapping's `roles` applied. */
export interface UnmappedRole {
  role: string;
  turns: number;
  memories: number;
  example: string;
}

/** Roles in the sampled conversations the mapping does not map to user or assistant. */
export function unmappedRoles(sample: CanonicalMemory[]): UnmappedRole[] {
  const roles = new Map<string, UnmappedRole>();
  for (const doc of sample) {
    const raw = (doc.content as { raw?: unknown } | undefined)?.raw;
    if (!Array.isArray(raw)) continue;
    const seen = new Set<string>();
    for (const turn of raw) {
      const said = (turn as { role?: unknown } | null)?.role;
      if (typeof said !== 'string' || said === 'user' || said === 'assistant') continue;
      // A sender id, the memory's own user's or partner's: one entry for every user's, as `roles` maps it.
      const role = said === doc.userId ? '$userId' : said === doc.partnerId ? '$partnerId' : said;
      const entry = roles.get(role) ?? { role, turns: 0, memories: 0, example: String(doc.memoryId) };
      entry.turns++;
      if (!seen.has(role)) entry.memories++;
      seen.add(role);
      roles.set(role, entry);
    }
  }
  return [...roles.values()].sort((a, b) => b.turns - a.turns);
}

/** What memfade does with a turn of an unmapped role: said with each one doctor reports. */
export function unmappedRoleEffect(role: string, mapping: Mapping): string {
  const key = mapping.config.memory.conversation.turns
    ? 'mapping.memory.conversation.turns.roles'
    : 'mapping.memory.conversation.turns (roles)';
  if (role === '$userId' || role === '$partnerId')
    return (
      `these turns name their sender by the memory's own ${role === '$userId' ? 'user' : 'partner'} id, which the model ` +
      `would read as a stranger's name; map ${role} to ${role === '$userId' ? 'user' : 'assistant'} in ${key}`
    );
  return (
    `memfade compresses these turns with the rest, as "${role}: <text>" lines of the conversation ` +
    `(the model reads them as the product wrote them); map ${JSON.stringify(role)} to user or assistant in ${key} to have them read as one of those`
  );
}

/** What the collection of a missing index holds, and how often memfade would scan it without one. */
export interface ScanContext {
  documents: number;
  bytes?: number;
  /** Model jobs due tonight (each reads its memory, its turns, its card). */
  jobsTonight: number;
  /** How often the vector outbox looks for flagged memories (VECTOR_SYNC_INTERVAL_MS). */
  sweepIntervalMs: number;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * What a missing product index costs: the query it serves, read instead as a scan of the whole
 * collection, and how many documents that reads (memfade works without it, slower).
 */
export function missingIndexCost(check: IndexCheck, ctx: ScanContext): string {
  const size = ctx.bytes === undefined ? '' : `, ${(ctx.bytes / 1e6).toFixed(1)} MB`;
  const scan = `a scan of all ${count(ctx.documents)} documents${size}`;
  const perJob = `tonight's ${count(ctx.jobsTonight)} jobs read ~${count(ctx.jobsTonight * ctx.documents)} documents`;
  switch (check.name) {
    case 'due_scan':
      return `each run's due scan (and status) is ${scan} instead of reading the due memories only`;
    case 'created':
      return `each night's enrolment is ${scan} instead of the memories created since the last night`;
    case 'memory_id':
      return `each job reads its memory by id with ${scan}: ${perJob}`;
    case 'vector_pending': {
      const perDay = Math.round(86_400_000 / Math.max(1, ctx.sweepIntervalMs));
      return `the vector outbox looks for flagged memories every ${ctx.sweepIntervalMs / 1000} s (VECTOR_SYNC_INTERVAL_MS) with ${scan}: ~${count(perDay * ctx.documents)} documents a day`;
    }
    case 'user':
      return `a run or backfill for some users (--user), forget --user and counts per user are ${scan}`;
    case 'memfade_turns':
      return `each job reads its memory's turns with ${scan}: ${perJob}`;
    case 'memfade_role_card':
      return `each role card read (one per key and worker a minute, cached) is ${scan}`;
    case 'history_run':
      return `each run's end counts the memories it applied stages to with five scans of all ${count(ctx.documents)} documents${size}`;
    default:
      return `the queries on it are ${scan}`;
  }
}

/** A field of memfade's name that holds the product's data in sampled memories (ownership.ts). */
export interface ProductDataField {
  field: string;
  memories: number;
  example: string;
}

/** The sampled memories canonical() found with product data at memfade's fields, by field. */
export function productDataFields(sample: CanonicalMemory[]): ProductDataField[] {
  const byField = new Map<string, ProductDataField>();
  for (const doc of sample) {
    const fields = Array.isArray(doc.productFields) ? (doc.productFields as string[]) : [];
    for (const field of fields) {
      const found = byField.get(field) ?? {
        field,
        memories: 0,
        example: String(doc.memoryId ?? doc.source._id),
      };
      found.memories++;
      byField.set(field, found);
    }
  }
  return [...byField.values()];
}

/**
 * Errors (doctor exits 1) for each such field: memfade refuses those memories rather than write over
 * the product's data (docs/design.md invariant 10), and the mapping is what moves memfade's fields away.
 */
export function judgeProductData(fields: ProductDataField[], sampled: number): string[] {
  return fields.map(
    (f) =>
      `${f.field}: ${f.memories} of ${sampled} sampled memories hold the product's data in this field of memfade's (e.g. ${f.example}); memfade will not write over it, so each such memory fails as bad input: set mapping.writes.prefix (e.g. writes: { prefix: memfade }) or mapping.writes.collection`,
  );
}
