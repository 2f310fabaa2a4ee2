import {
  type Embedder,
  type Exclusive,
  errorMessage,
  type Memory,
  searchableText,
  type VectorRecord,
  type VectorStore,
} from '@memfade/core';
import { findVectorPending, type Models, markVectorSynced } from '@memfade/db';
import type { Logger } from 'pino';

/** How long after a transition its vector is written at most, when fewer than a batch follow. */
const FLUSH_DELAY_MS = 2_000;

/**
 * Drains the vector outbox (DESIGN invariant 4): memories whose stage write set
 * `vectorSync.pending` are embedded and upserted in batches (many small writes fragment
 * LanceDB), and the flag is cleared only after the upsert succeeded. The same loop is the
 * sweeper that repairs the store after a crash between the stage write and the upsert.
 */
export class VectorSyncer {
  private chain: Promise<unknown> = Promise.resolve();
  private scheduled: NodeJS.Timeout | undefined;
  private scheduledAt = 0;
  /** Transitions since the last scheduled drain started. */
  private notified = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      models: Models;
      embedder: Embedder;
      store: VectorStore;
      logger: Logger;
      batchSize: number;
      now: () => Date;
      /** FLUSH_DELAY_MS unless given (tests). */
      flushDelayMs?: number;
      /**
       * Serialises vector writes across the processes sharing the store. Two LanceDB writers merging
       * the same new id at once both insert it, and the duplicate can keep an older stage's text.
       */
      exclusive?: Exclusive;
    },
  ) {}

  /**
   * A transition was written: flush once a batch's worth has been written, or FLUSH_DELAY_MS
   * after the first, so each upsert carries many memories: every flush costs two outbox queries
   * and a LanceDB merge that reads the table, whatever its size.
   */
  notify(): void {
    this.notified++;
    if (this.notified >= this.deps.batchSize) this.flush(0);
    else this.flush(this.deps.flushDelayMs ?? FLUSH_DELAY_MS);
  }

  /** Sweeps the outbox every intervalMs (0 disables the sweeper). */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.sweeper = setInterval(() => this.flush(0), intervalMs);
  }

  /** Drains in delayMs, unless a drain is already scheduled sooner. */
  private flush(delayMs: number): void {
    if (this.scheduled && this.scheduledAt <= Date.now() + delayMs) return;
    clearTimeout(this.scheduled);
    this.scheduledAt = Date.now() + delayMs;
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.notified = 0;
      void this.drain().catch((err) => this.deps.logger.error({ err }, 'vector sync failed'));
    }, delayMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    await this.chain.catch(() => undefined);
  }

  /** Syncs until the outbox is empty; returns how many flags were cleared. Calls never overlap. */
  drain(): Promise<number> {
    const next = this.chain.then(async () => {
      let total = 0;
      for (let synced = await this.syncBatch(); synced > 0; synced = await this.syncBatch()) total += synced;
      return total;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async syncBatch(): Promise<number> {
    const docs = await findVectorPending(this.deps.models, this.deps.batchSize);
    if (docs.length === 0) return 0;
    const items: { record: Omit<VectorRecord, 'vector'>; textHash: string }[] = [];
    const unusable: { memoryId: string; textHash: string }[] = [];
    const at = this.deps.now();
    for (const doc of docs) {
      const memory = doc as unknown as Memory;
      const textHash = memory.vectorSync?.textHash ?? '';
      try {
        const record = {
          id: memory.memoryId,
          userId: memory.userId,
          partnerId: memory.partnerId ?? 'default',
          stage: memory.meta.compressionStage,
          text: searchableText(memory),
          embeddingModel: this.deps.embedder.model,
          updatedAt: at,
          rev: memory.rev ?? 0,
        };
        items.push({ record, textHash });
      } catch (err) {
        // A document too malformed to give a text would otherwise stay pending forever.
        this.deps.logger.warn(
          { memoryId: memory.memoryId, err: errorMessage(err) },
          'memory has no searchable text',
        );
        unusable.push({ memoryId: memory.memoryId, textHash });
      }
    }
    const vectors = await this.deps.embedder.embed(items.map((i) => i.record.text));
    const records = items.map((item, i) => ({ ...item.record, vector: vectors[i]! }));
    const exclusive = this.deps.exclusive ?? ((work) => work());
    await exclusive(() => this.deps.store.upsert(records));
    const synced = items.map((i) => ({ memoryId: i.record.id, textHash: i.textHash }));
    // Counted by what was cleared, so a document that cannot be cleared ends the drain instead of looping.
    return markVectorSynced(this.deps.models, [...synced, ...unusable], at);
  }
}
