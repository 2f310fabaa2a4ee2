import {
  type BatchMemoryStore,
  type HistoryEntry,
  type LastError,
  type StageTransition,
  type StaleStagesDiscard,
  vectorHash,
} from '@memfade/core';
import { canonicalRoleCard } from './canonical.js';
import { type Mapping, stageResultPath, valueAt } from './mapping.js';
import {
  loadMemoryDocument,
  loadMemoryDocuments,
  recordLastError,
  writeManyMine,
  writeMine,
} from './memory-documents.js';
import type { Models } from './models.js';
import { productFieldName } from './product-field-name.js';
import { type CardOwner, type FoundCard, findRoleCard, findRoleCards, lookupKey } from './role-cards.js';
import { learnOwner } from './user-costs.js';

/** How long a worker reuses a role card it read: a user's memories share one, night after night. */
export const ROLE_CARD_CACHE_MS = 60_000;
/** Role cards kept at most; the cache starts over past it (one night touches each user in bursts). */
const ROLE_CARD_CACHE_SIZE = 10_000;

/** Told once per key and process when several cards hold one key (role-cards.ts: the first is used). */
export type DuplicateCardsWarning = (message: string, details: Record<string, unknown>) => void;

export interface MemoryStoreOptions {
  roleCardCacheMs?: number;
  onDuplicateCards?: DuplicateCardsWarning;
}

/**
 * The memory store of the compress hot path. Its reads and writes go through the driver's
 * collection under the mongoose model: the documents are schemaless here (strict: false, Mixed),
 * so mongoose's query casting and hooks do nothing for them but cost about a third of each call's
 * CPU, three calls per job.
 */
export class MongoMemoryStore implements BatchMemoryStore {
  private readonly roleCards = new Map<string, { card: Record<string, unknown>; until: number }>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly models: Models,
    private readonly options: MemoryStoreOptions = {},
  ) {}

  private get mapping(): Mapping {
    return this.models.mapping;
  }

  /** The product's name of a field of core's shape: bad input errors name what the operator will find. */
  fieldName(field: string): string {
    return productFieldName(this.mapping, field);
  }

  /** The memory in core's shape, with the product's document as read under `source`. */
  async loadMemory(memoryId: string): Promise<Record<string, unknown> | null> {
    const memory = await loadMemoryDocument(this.models, memoryId);
    // The job's ledger writes need its owner: known from this read, not read again (user-costs.ts).
    if (memory) learnOwner(this.models, memoryId, memory.userId);
    return memory;
  }

  /** Many memories in one query, and the role cards of their owners not cached yet in one more. */
  async loadMemories(memoryIds: string[]): Promise<Map<string, Record<string, unknown>>> {
    const memories = await loadMemoryDocuments(this.models, memoryIds);
    for (const [memoryId, memory] of memories) learnOwner(this.models, memoryId, memory.userId);
    const owners = [...memories.values()].flatMap((memory) => {
      const { userId, partnerId } = memory;
      if (typeof userId !== 'string') return [];
      // As core reads it: a memory without a partner id has the partner `default`.
      return [{ userId, partnerId: typeof partnerId === 'string' ? partnerId : 'default' }];
    });
    await this.cacheRoleCards(owners);
    return memories;
  }

  /**
   * The card of the memory's user and partner, as the mapping keys cards (role-cards.ts). A found
   * card is reused for ROLE_CARD_CACHE_MS (so an edited card applies within that time); a missing
   * one is asked for again every time, so adding it takes effect at once.
   */
  async loadRoleCard(userId: string, partnerId = 'default'): Promise<Record<string, unknown> | null> {
    const owner = { userId, partnerId };
    if ('default' in this.mapping.roleCard) return canonicalRoleCard(null, userId, this.mapping);
    const key = lookupKey(this.mapping, owner);
    const cached = this.roleCards.get(key);
    if (cached && cached.until > Date.now()) return cached.card;
    const found = await findRoleCard(this.models, owner);
    if (found) this.warnDuplicates(found);
    return this.cache(key, found?.card ?? null);
  }

  private async cacheRoleCards(owners: CardOwner[]): Promise<void> {
    if ('default' in this.mapping.roleCard) return;
    const now = Date.now();
    const wanted = owners.filter(
      (owner) => !((this.roleCards.get(lookupKey(this.mapping, owner))?.until ?? 0) > now),
    );
    if (wanted.length === 0) return;
    for (const [key, found] of await findRoleCards(this.models, wanted)) {
      this.warnDuplicates(found);
      this.cache(key, found.card);
    }
  }

  /** Several cards of one key: the first in cardOrder is used, and the log says so once. */
  private warnDuplicates(found: FoundCard): void {
    const key = JSON.stringify(found.key);
    if (found.duplicates.length === 0 || this.warned.has(key)) return;
    if (this.warned.size >= ROLE_CARD_CACHE_SIZE) this.warned.clear();
    this.warned.add(key);
    this.options.onDuplicateCards?.(
      'several role cards hold one key: the most recently updated is used (then the smallest _id); run memfade doctor',
      {
        collection: this.mapping.collections.roleCards,
        key: found.key,
        used: String(found.id),
        ignored: found.duplicates.map(String),
      },
    );
  }

  private cache(key: string, card: Record<string, unknown> | null): Record<string, unknown> | null {
    const ttl = this.options.roleCardCacheMs ?? ROLE_CARD_CACHE_MS;
    if (card && ttl > 0) {
      if (this.roleCards.size >= ROLE_CARD_CACHE_SIZE) this.roleCards.clear();
      this.roleCards.set(key, { card, until: Date.now() + ttl });
    }
    return card;
  }

  /**
   * The stage transition as ONE conditional write (docs/design.md invariant 2): it applies only if the
   * memory is still at the expected stage and revision, so a stage can never be applied twice,
   * and its content is still the one the stage was computed from. `content` is not touched: the
   * original stays as it was. In side-collection mode, and with joined turns, the write is verified
   * after it is made and reverted when the input changed (memory-documents.ts writeMine).
   */
  async applyTransition(t: StageTransition): Promise<boolean> {
    return writeMine(this.models, t, this.stageUpdate(t), { holdInputs: true });
  }

  /**
   * A chunk of stage transitions in one command where the mode allows (writeManyMine). A memory
   * holds its transition when its history has the transition's entry: the one this run just wrote
   * (or an identical write of the same run, another poller of the same results).
   */
  async applyTransitions(transitions: StageTransition[]): Promise<boolean[]> {
    const writes = transitions.map((t) => ({ guard: t, update: this.stageUpdate(t) }));
    return writeManyMine(this.models, writes, (doc, i) => {
      const entry = transitions[i]!.history.at(-1)!;
      const history = valueAt(doc, this.mapping.fields.history);
      return Array.isArray(history) && history.some((h) => sameEntry(h, entry));
    });
  }

  private stageUpdate(t: StageTransition) {
    const F = this.mapping.fields;
    return {
      $set: {
        [F.stage]: t.stage,
        [F.compressedAt]: t.result.compressedAt,
        [stageResultPath(this.mapping, t.stage)]: t.result,
        [F.vectorSync]: { pending: true, stage: t.stage, textHash: vectorHash(t.stage, t.searchText) },
        [F.history]: t.history,
        ...(t.draft && { [F.v2Draft]: t.draft }),
      },
      // A V2 draft lives from the V1 write that brings it to the next stage write (docs/design.md §4).
      $unset: { [F.lastError]: '' as const, ...(!t.draft && { [F.v2Draft]: '' as const }) },
    };
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
    return writeMine(
      this.models,
      d,
      {
        $set: {
          [F.stage]: 'raw',
          [F.history]: [],
          [F.discarded]: discarded,
          [F.vectorSync]: { pending: true, stage: 'raw', textHash: vectorHash('raw', d.searchText) },
        },
        $unset: {
          [stageResultPath(this.mapping, 'v1')]: '',
          [stageResultPath(this.mapping, 'v2')]: '',
          [F.v2Draft]: '',
          [F.rollbacks]: '',
          [F.compressedAt]: '',
        },
      },
      { holdInputs: true },
    );
  }

  async recordError(memoryId: string, error: LastError): Promise<void> {
    await recordLastError(this.models, memoryId, error);
  }
}

/** The same history entry as stored: the stage, the run and the time it was written. */
function sameEntry(stored: unknown, entry: HistoryEntry): boolean {
  const h = stored as Partial<HistoryEntry> | null;
  return (
    h?.stage === entry.stage &&
    h.runId === entry.runId &&
    h.at instanceof Date &&
    h.at.getTime() === entry.at.getTime()
  );
}
