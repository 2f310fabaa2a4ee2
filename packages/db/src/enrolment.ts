import { idsFilter, readDate, storedDate } from './canonical.js';
import { idString, idsAt } from './ids.js';
import { valueAt } from './mapping.js';
import type { Models } from './models.js';

/**
 * Side-collection mode: a memory memfade has never seen has no side document, so its stage is in
 * no index and the due scan (on the side collection's `{ stage, createdAt }` index) cannot find it.
 * Enrolment gives it one first: the product documents created since the last enrolment (a
 * watermark in `compression_state`) up to the cutoff are read by a range scan on the product's
 * creation date index, and each gets `{ _id, userId, createdAt, stage: 'raw', rev: 0 }` unless it
 * has a side document already. Then the watermark moves to the cutoff. A night costs one range scan
 * over the memories that became due since the last night, not a scan of the collection.
 *
 * A product document inserted later with a creation date at or before the watermark is not found
 * by the range scan: a backfill (or a run for some users) enrols its whole range, with no
 * watermark, and finds it. One such document is found every night: a memory the product deleted
 * and put back under the same id (undo, restore, delete-then-insert). The erasure sweep that deleted
 * its side document noted the id (`recordVanished`), and each enrolment looks those ids up.
 */

const BATCH = 1000;

/** The watermark document of the product collection this mapping reads. */
const watermarkId = (models: Models) => `enrolment:${models.mapping.collections.memories}`;

export interface EnrolOptions {
  /** Enrol memories created at or before this instant; none: whatever their date. */
  through?: Date;
  /** Only these users' memories (the watermark is neither read nor moved). */
  userIds?: string[];
  /** The whole range, not only since the watermark (backfill, reindex); the watermark still moves. */
  all?: boolean;
}

/** Enrols the due product documents; returns how many got a side document. Nothing in prefix mode. */
export async function enrolMemories(models: Models, options: EnrolOptions): Promise<number> {
  const { mapping } = models;
  if (!mapping.side) return 0;
  const F = mapping.fields;
  const format = mapping.createdAtFormat;
  const users = options.userIds?.length ? options.userIds : undefined;
  const watermark =
    options.all || users
      ? undefined
      : ((await models.state.collection.findOne({ _id: watermarkId(models) } as never))?.through as
          | Date
          | undefined);
  const range = {
    ...(watermark && { $gt: storedDate(watermark, format) }),
    ...(options.through && { $lte: storedDate(options.through, format) }),
  };
  const filter = {
    ...(Object.keys(range).length
      ? { [F.createdAt]: range }
      : // No bound: every document with a date of the declared type (the others are bad input).
        { [F.createdAt]: { $exists: true } }),
    ...(users && idsAt(F.userId, users)),
  };
  const cursor = models.memories.collection.find(filter, {
    projection: { [F.memoryId]: 1, [F.userId]: 1, [F.createdAt]: 1 },
    batchSize: BATCH,
  });
  let enrolled = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length) enrolled += await enrol(models, batch);
    batch = [];
  };
  for await (const doc of cursor) {
    const createdAt = readDate(valueAt(doc, F.createdAt), format);
    // A date of another type or an unreadable one is the invalid-memory scan's to report.
    if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) continue;
    batch.push({
      id: idString(valueAt(doc, F.memoryId)),
      userId: idString(valueAt(doc, F.userId)),
      createdAt,
    });
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  if (!users) enrolled += await enrolReturned(models);
  if (options.through && !users) await advanceWatermark(models, options.through);
  return enrolled;
}

/**
 * Side documents deleted because their product document was gone: one small state document each,
 * `_id` `vanished:<collection>:<memory id>`, so one `_id` range reads them. Ids and dates only,
 * never text; looked for again for VANISHED_DAYS, at most VANISHED_MAX a night.
 */
const vanishedPrefix = (models: Models) => `vanished:${models.mapping.collections.memories}:`;
const VANISHED_DAYS = 30;
const VANISHED_MAX = 20_000;

/** Notes memories whose side documents the erasure sweep deleted (product document gone). */
export async function recordVanished(models: Models, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  const prefix = vanishedPrefix(models);
  await models.state.collection.bulkWrite(
    ids.map((id) => ({
      updateOne: { filter: { _id: prefix + id } as never, update: { $set: { at } }, upsert: true },
    })),
    { ordered: false },
  );
}

/**
 * Enrols the vanished memories whose product document is back, and forgets those back or older
 * than VANISHED_DAYS. One indexed lookup by memory id per night.
 */
async function enrolReturned(models: Models): Promise<number> {
  const F = models.mapping.fields;
  const prefix = vanishedPrefix(models);
  const notes = await models.state.collection
    .find({ _id: { $gte: prefix, $lt: `${prefix}\uffff` } } as never)
    .limit(VANISHED_MAX)
    .toArray();
  if (notes.length === 0) return 0;
  const idOf = (note: { _id: unknown }) => String(note._id).slice(prefix.length);
  const back = await models.memories.collection
    .find(idsFilter(F.memoryId, notes.map(idOf)), {
      projection: { [F.memoryId]: 1, [F.userId]: 1, [F.createdAt]: 1 },
    })
    .toArray();
  const docs = back.flatMap((doc) => {
    const createdAt = readDate(valueAt(doc, F.createdAt), models.mapping.createdAtFormat);
    if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) return [];
    return [{ id: idString(valueAt(doc, F.memoryId)), userId: idString(valueAt(doc, F.userId)), createdAt }];
  });
  const enrolled = docs.length ? await enrol(models, docs) : 0;
  const found = new Set(back.map((doc) => idString(valueAt(doc, F.memoryId))));
  const expired = Date.now() - VANISHED_DAYS * 86_400_000;
  const drop = notes.filter((n) => found.has(idOf(n)) || new Date(n.at as Date).getTime() < expired);
  if (drop.length)
    await models.state.collection.deleteMany({ _id: { $in: drop.map((n) => n._id) } } as never);
  return enrolled;
}

/**
 * One upsert per memory: a new side document at raw, or the existing one left as it is but for
 * the user and creation date, copied again from the product. Two producers enrolling at once can
 * both try to insert the same document; the loser's retry finds it.
 */
async function enrol(models: Models, docs: Record<string, unknown>[]): Promise<number> {
  const F = models.mapping.fields;
  const write = () =>
    models.mine.collection.bulkWrite(
      docs.map((doc) => ({
        updateOne: {
          filter: { _id: doc.id } as never,
          update: {
            $setOnInsert: { [F.stage]: 'raw', [F.rev]: 0 },
            $set: { userId: doc.userId, createdAt: doc.createdAt },
          },
          upsert: true,
        },
      })),
      { ordered: true },
    );
  try {
    return (await write()).upsertedCount;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
    return (await write()).upsertedCount;
  }
}

/** Moves the watermark forward (never back: a run for an older instant leaves it). */
async function advanceWatermark(models: Models, through: Date): Promise<void> {
  const _id = watermarkId(models);
  const moved = await models.state.collection.updateOne({ _id, through: { $lt: through } } as never, {
    $set: { through },
  });
  if (moved.matchedCount === 1) return;
  await models.state.collection.insertOne({ _id, through } as never).catch((error) => {
    // It exists already, at or past `through`.
    if ((error as { code?: unknown }).code !== 11000) throw error;
  });
}

/** Where the nightly enrolment has reached (doctor reports it), or undefined before the first. */
export async function enrolmentWatermark(models: Models): Promise<Date | undefined> {
  const state = await models.state.collection.findOne({ _id: watermarkId(models) } as never);
  return (state?.through as Date | undefined) ?? undefined;
}
