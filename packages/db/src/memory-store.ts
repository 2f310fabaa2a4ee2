import {
  type LastError,
  type MemoryStore,
  type StageTransition,
  type StaleStagesDiscard,
  vectorHash,
} from '@memfade/core';
import { canonical, canonicalRoleCard, memoryFilter, stageFilter } from './canonical.js';
import { type Mapping, stageResultPath, valueAt } from './mapping.js';
import type { Models } from './models.js';

/** Documents written before memfade have no `rev`: they count as revision 0. */
export function revFilter(rev: number, mapping: Mapping): Record<string, unknown> {
  const path = mapping.fields.rev;
  return rev === 0 ? { $or: [{ [path]: 0 }, { [path]: { $exists: false } }] } : { [path]: rev };
}

/**
 * Matches the memory only while its input (the mapping's conversation, processed fields and
 * pending topics: what the product may edit or redact) is exactly as read (DESIGN invariant 7).
 * An equality on the values at their mapped paths in the document as read (`source`), not a hash:
 * MongoDB cannot hash a field inside a filter, and a hash stored by memfade would not change when
 * the product edits the content. `$eq` keeps product data from being read as operators.
 */
export function inputFilter(asRead: Record<string, unknown>, mapping: Mapping): Record<string, unknown> {
  const source = (asRead.source ?? asRead) as Record<string, unknown>;
  return Object.fromEntries(
    mapping.fields.inputs.map((field) => {
      const value = valueAt(source, field);
      return [field, value === undefined ? { $exists: false } : { $eq: value }];
    }),
  );
}

/**
 * The memory exactly as a job read it: same stage, same revision, same product input. Every write of
 * a job's result is conditional on it (DESIGN invariants 2 and 7).
 */
function unchangedSince(
  mapping: Mapping,
  read: { memoryId: string; expectedStage: string; expectedRev: number; asRead: Record<string, unknown> },
): Record<string, unknown> {
  return {
    ...memoryFilter(mapping, read.memoryId),
    ...stageFilter(mapping, read.expectedStage),
    ...revFilter(read.expectedRev, mapping),
    ...inputFilter(read.asRead, mapping),
  };
}

/** How long a worker reuses a role card it read: a user's memories share one, night after night. */
export const ROLE_CARD_CACHE_MS = 60_000;
/** Role cards kept at most; the cache starts over past it (one night touches each user in bursts). */
const ROLE_CARD_CACHE_SIZE = 10_000;

/**
 * The memory store of the compress hot path. Its reads and writes go through the driver's
 * collection under the mongoose model: the documents are schemaless here (strict: false, Mixed),
 * so mongoose's query casting and hooks do nothing for them but cost about a third of each call's
 * CPU, three calls per job.
 */
export class MongoMemoryStore implements MemoryStore {
  private readonly roleCards = new Map<string, { card: Record<string, unknown>; until: number }>();

  constructor(
    private readonly models: Models,
    private readonly options: { roleCardCacheMs?: number } = {},
  ) {}

  private get mapping(): Mapping {
    return this.models.mapping;
  }

  /** The memory in core's shape, with the product's document as read under `source`. */
  async loadMemory(memoryId: string): Promise<Record<string, unknown> | null> {
    const doc = await this.models.memories.collection.findOne(memoryFilter(this.mapping, memoryId));
    return doc && canonical(doc, this.mapping);
  }

  /**
   * A found card is reused for ROLE_CARD_CACHE_MS (so an edited card applies within that time);
   * a missing one is asked for again every time, so adding it takes effect at once.
   */
  async loadRoleCard(userId: string): Promise<Record<string, unknown> | null> {
    if ('default' in this.mapping.roleCard) return canonicalRoleCard(null, userId, this.mapping);
    const now = Date.now();
    const cached = this.roleCards.get(userId);
    if (cached && cached.until > now) return cached.card;
    const found = await this.models.roleCards.collection.findOne({
      [this.mapping.roleCard.paths.key]: userId,
    });
    const card = canonicalRoleCard(found, userId, this.mapping);
    const ttl = this.options.roleCardCacheMs ?? ROLE_CARD_CACHE_MS;
    if (card && ttl > 0) {
      if (this.roleCards.size >= ROLE_CARD_CACHE_SIZE) this.roleCards.clear();
      this.roleCards.set(userId, { card, until: now + ttl });
    }
    return card;
  }

  /**
   * The stage transition as ONE conditional write (DESIGN invariant 2): it applies only if the
   * memory is still at the expected stage and revision, so a stage can never be applied twice,
   * and its content is still the one the stage was computed from. `content` is not touched: the
   * original stays as it was.
   */
  async applyTransition(t: StageTransition): Promise<boolean> {
    const F = this.mapping.fields;
    const result = await this.models.memories.collection.updateOne(unchangedSince(this.mapping, t), {
      $set: {
        [F.stage]: t.stage,
        [F.compressedAt]: t.result.compressedAt,
        [stageResultPath(this.mapping, t.stage)]: t.result,
        [F.vectorSync]: { pending: true, stage: t.stage, textHash: vectorHash(t.stage, t.searchText) },
        [F.history]: t.history,
      },
      $inc: { [F.rev]: 1 },
      $unset: { [F.lastError]: '' },
    });
    return result.modifiedCount === 1;
  }

  async discardStaleStages(d: StaleStagesDiscard): Promise<boolean> {
    const F = this.mapping.fields;
    // Read from the canonical memory, where memfade's fields sit at their default paths.
    const list = (path: string) => {
      const value = valueAt(d.asRead, path);
      return Array.isArray(value) ? value : [];
    };
    const discarded = [
      ...list('compression.discarded'),
      ...list('compression.history').map((entry) => ({ ...entry, discardedAt: d.at })),
    ];
    const result = await this.models.memories.collection.updateOne(unchangedSince(this.mapping, d), {
      $set: {
        [F.stage]: 'raw',
        [F.history]: [],
        [F.discarded]: discarded,
        [F.vectorSync]: { pending: true, stage: 'raw', textHash: vectorHash('raw', d.searchText) },
      },
      $unset: {
        [stageResultPath(this.mapping, 'v1')]: '',
        [stageResultPath(this.mapping, 'v2')]: '',
        [F.rollbacks]: '',
        [F.compressedAt]: '',
      },
      $inc: { [F.rev]: 1 },
    });
    return result.modifiedCount === 1;
  }

  async recordError(memoryId: string, error: LastError): Promise<void> {
    const F = this.mapping.fields;
    try {
      await this.models.memories.updateOne(
        memoryFilter(this.mapping, memoryId),
        { $set: { [F.lastError]: error }, $inc: { [F.rev]: 1 } },
        { strict: false },
      );
    } catch {
      // `compression` holds something that is not an object, so it cannot take a sub-field; the
      // reason must still be recorded, and the malformed field is the product's to keep.
      await this.models.memories.updateOne(
        memoryFilter(this.mapping, memoryId),
        { $set: { [F.fallbackLastError]: error }, $inc: { [F.rev]: 1 } },
        { strict: false },
      );
    }
  }
}
