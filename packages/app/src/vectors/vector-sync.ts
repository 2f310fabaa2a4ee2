import {
  type Embedder,
  type Exclusive,
  type Memory,
  type MemoryStore,
  type StagePolicy,
  stagePolicy,
  type VectorRecord,
  type VectorStore,
} from '@memfade/core';
import {
  advanceSweepCursor,
  findVectorPending,
  type Models,
  markVectorSynced,
  owePurge,
  presentMemories,
  purgeOwed,
  readSweepCursor,
  stillFlagged,
} from '@memfade/db';
import type { Logger } from 'pino';
import type { ErasureDeps, JobRelease } from '../erasure/deps.js';
import { recordText, staleMemory } from '../erasure/record-text.js';
import {
  addSweep,
  discardIfStale,
  purgeHistory,
  type SweepCounts,
  sweepAll,
  sweepPage,
  sweepSidePage,
} from '../erasure/sweep.js';
import type { FleetMetrics } from '../runs/metrics.js';
import { ATTR, SyncLinks, vectorSyncSpan } from '../telemetry/spans.js';

/** What one drain of the outbox did, by memory. */
export interface DrainReport {
  /** Outbox flags cleared (a memory flagged again meanwhile is cleared twice). */
  cleared: number;
  /** Memories whose record was written. */
  embedded: Set<string>;
  /** Memories given no record as bad input (docs/design.md invariant 5): their old record, if any, deleted. */
  notEmbedded: Set<string>;
}

/** How long after a transition its vector is written at most, when fewer than a batch follow. */
const FLUSH_DELAY_MS = 2_000;
/** Records one sweep may remove before it says so at warn: a product deleting that many is news. */
const SWEEP_WARN_REMOVED = 100;

/**
 * Drains the vector outbox (docs/design.md invariant 4) and sweeps the store for erasure (invariant 8): memories whose stage write set
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
  /** The jobs whose writes the next drain syncs, for its trace span's links (telemetry/spans.ts). */
  private readonly links = new SyncLinks();

  constructor(
    private readonly deps: {
      models: Models;
      /**
       * The process's memory store: a memory whose text changed after its stage is read and taken
       * back to raw through it (erasure/sweep.ts discardIfStale).
       */
      memories: Pick<MemoryStore, 'loadMemory' | 'discardStaleStages'>;
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
      /** Which memories are bad input and get no record (its size limit); the defaults unless given. */
      policy?: StagePolicy;
      /** See ErasureDeps.releaseJobs. */
      releaseJobs?: (memoryIds: string[]) => Promise<JobRelease>;
      /** The fleet's counters: each sweep's counts go to memfade_sweep_records_total (runs/metrics.ts). */
      metrics?: Pick<FleetMetrics, 'sweepCounted'>;
      /** Says whether a failure is an outage told to its own log (MongoDB away), not logged here again. */
      outage?: { failed(error: Error): boolean };
    },
  ) {}

  /**
   * A transition was written: flush once a batch's worth has been written, or FLUSH_DELAY_MS
   * after the first, so each upsert carries many memories: every flush costs two outbox queries
   * and a LanceDB merge that reads the table, whatever its size.
   */
  notify(): void {
    this.links.note();
    this.notified++;
    if (this.notified >= this.deps.batchSize) this.flush(0);
    else this.flush(this.deps.flushDelayMs ?? FLUSH_DELAY_MS);
  }

  /**
   * Every intervalMs (0 disables both): drains the outbox, and sweeps one page of the store for
   * erasure (see sweepNext). The erasure sweep goes one page per interval, not the whole store: its
   * cost per interval stays that of one page (one listIds, one get, one MongoDB find of SWEEP_PAGE
   * records) whatever the store's size, and a full pass takes size / SWEEP_PAGE intervals (1M
   * records at the default 5 s: under 3 hours). `memfade reindex --prune` sweeps everything at once.
   */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.sweeper = setInterval(() => {
      this.flush(0);
      void this.sweepNext().catch((err) => this.failed(err, 'vector erasure sweep failed'));
    }, intervalMs);
  }

  /**
   * The next page of the erasure sweep (erasure/sweep.ts sweepPage) after the fleet's shared cursor
   * (sweep-cursor.ts), starting over at the first id once the last page is done. Queued behind any
   * drain, so this process never sweeps and syncs at once.
   */
  sweepNext(): Promise<SweepCounts> {
    return this.queued(async () => {
      const { models } = this.deps;
      const cursor = await readSweepCursor(models);
      const { counts, last } = await sweepPage(this.erasure, { after: cursor.store, owe: owePurge });
      const side = await sweepSidePage(this.erasure, { after: cursor.side });
      // What this page deleted (owed before it deleted: sweepPage) is purged from the store's
      // history at the end of the pass (once per pass: a purge rewrites the whole table), by
      // whichever worker ends it. A purge that fails stays owed for the next pass's end and never
      // holds the sweep back.
      if (last === undefined && cursor.store !== undefined && (await purgeOwed(models)))
        await purgeHistory(this.erasure).then(
          (purge) => this.deps.logger.info({ purge }, 'vector store history purged after the sweep pass'),
          (err: unknown) =>
            this.deps.logger.warn({ err }, 'vector store history not purged: owed to the next pass'),
        );
      await advanceSweepCursor(models, cursor, { store: last, side: side.last });
      addSweep(counts, side.counts);
      this.logSweep(counts);
      return counts;
    });
  }

  /** The whole store at once (`memfade reindex --prune`). */
  sweepAll(): Promise<SweepCounts> {
    return this.queued(async () => {
      const counts = await sweepAll(this.erasure);
      this.logSweep(counts);
      return counts;
    });
  }

  private get erasure(): ErasureDeps {
    return {
      models: this.deps.models,
      store: this.deps.store,
      memories: this.deps.memories,
      policy: this.policy,
      now: this.deps.now,
      exclusive: this.deps.exclusive,
      releaseJobs: this.deps.releaseJobs,
    };
  }

  /** The next interval tries again; an outage with a log of its own is said there, once. */
  private failed(err: Error, message: string): void {
    if (!this.deps.outage?.failed(err)) this.deps.logger.error({ err }, message);
  }

  private logSweep(counts: SweepCounts): void {
    void this.deps.metrics
      ?.sweepCounted(counts)
      .catch((err) => this.deps.logger.warn({ err }, 'metrics not recorded'));
    const removed = counts.gone + counts.outdated + counts.orphans;
    if (removed + counts.restaged === 0) return;
    // Counts only: ids and text of erased memories have no place in the log (docs/design.md invariant 6).
    if (counts.restaged > 0) {
      // Stages lost: the run history still counts them, and the next night compresses (and pays
      // for) these memories again. An operator must hear of it, once per sweep, with the counts.
      this.deps.logger.warn(
        counts,
        'vector erasure sweep took memories back to raw: their content changed after their last stage; the run history still counts the stages they lost, and they are compressed again when due',
      );
    } else if (removed >= SWEEP_WARN_REMOVED) {
      this.deps.logger.warn(counts, 'vector erasure sweep removed many records');
    } else this.deps.logger.info(counts, 'vector erasure sweep removed records');
  }

  /** Drains in delayMs, unless a drain is already scheduled sooner. */
  private flush(delayMs: number): void {
    if (this.scheduled && this.scheduledAt <= Date.now() + delayMs) return;
    clearTimeout(this.scheduled);
    this.scheduledAt = Date.now() + delayMs;
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.notified = 0;
      void this.drain().catch((err) => this.failed(err, 'vector sync failed'));
    }, delayMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    await this.chain.catch(() => undefined);
  }

  /** Syncs until the outbox is empty; returns how many flags were cleared. Calls never overlap. */
  async drain(): Promise<number> {
    return (await this.drainReport()).cleared;
  }

  /**
   * drain(), saying what became of the memories: embedded, or not embedded (bad input: no record,
   * flag cleared). A memory discarded as stale is flagged again and embedded by a later batch of
   * the same drain, so it is counted once, as embedded (`memfade reindex` prints these counts).
   */
  drainReport(): Promise<DrainReport> {
    return this.queued(async () => {
      const report: DrainReport = { cleared: 0, embedded: new Set(), notEmbedded: new Set() };
      while ((await this.syncBatch(report)) > 0);
      return report;
    });
  }

  /**
   * Runs work after everything queued before it: drains, sweeps and (erasure/erasure.ts, given this
   * as its turn) forgets of this process never overlap.
   */
  queued<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** One batch of the outbox; returns how many flags it cleared, and adds them to the report. */
  private async syncBatch(report: DrainReport): Promise<number> {
    const docs = await findVectorPending(this.deps.models, this.deps.batchSize);
    if (docs.length === 0) return 0;
    const ids = docs.map((doc) => String(doc.memoryId));
    return vectorSyncSpan(ids, this.links, async (span) => {
      const cleared = await this.syncDocs(docs, report);
      span?.setAttribute(ATTR.outcome, `cleared ${cleared}`);
      return cleared;
    });
  }

  /** What syncBatch does with one batch of pending memories. */
  private async syncDocs(docs: Record<string, unknown>[], report: DrainReport): Promise<number> {
    const items: { record: Omit<VectorRecord, 'vector'>; read: SyncRead }[] = [];
    const unusable: ({ memoryId: string } & SyncRead)[] = [];
    const stale: string[] = [];
    const at = this.deps.now();
    for (const doc of docs) {
      const memory = doc as unknown as Memory;
      const read = { textHash: memory.vectorSync?.textHash ?? '', flag: memory.vectorSync?.flag };
      // A stage computed from content the product has changed since is never embedded: it is
      // discarded (back to raw, flagged with the raw text) and the next batch embeds that. In
      // side-collection mode this is also a stage seen between its write and its revert.
      if (staleMemory(doc, this.policy)) {
        stale.push(memory.memoryId);
        continue;
      }
      const text = recordText(doc, this.policy);
      if (text === undefined) {
        // Bad input (a huge or binary text would cost the embedder, or fail its whole batch):
        // no record, and its flag is cleared so it does not stay pending forever.
        this.deps.logger.warn({ memoryId: memory.memoryId }, 'memory not embedded: bad input');
        unusable.push({ memoryId: memory.memoryId, ...read });
        continue;
      }
      items.push({
        record: {
          id: memory.memoryId,
          userId: memory.userId,
          partnerId: memory.partnerId ?? 'default',
          stage: memory.meta.compressionStage,
          text,
          embeddingModel: this.deps.embedder.model,
          updatedAt: at,
          rev: memory.rev ?? 0,
        },
        read,
      });
    }
    const vectors = items.length ? await this.deps.embedder.embed(items.map((i) => i.record.text)) : [];
    const records = items.map((item, i) => ({ ...item.record, vector: vectors[i]! }));
    const written = await this.exclusive(async () => {
      // Asked under the lock forget deletes and purges under: a memory deleted and forgotten (or
      // flagged again) since it was read is not written back after the purge (invariant 8).
      const current = await stillFlagged(
        this.deps.models,
        items.map((i) => ({ memoryId: i.record.id, ...i.read })),
      );
      const kept = records.filter((record) => current.has(record.id));
      if (kept.length) await this.deps.store.upsert(kept);
      // A record made before the memory went bad holds its earlier text: it goes too.
      if (unusable.length) await this.deps.store.delete(unusable.map((u) => u.memoryId));
      if (!this.deps.exclusive) await this.takeBackOverrun(kept);
      return current;
    });
    const synced = items
      .filter((i) => written.has(i.record.id))
      .map((i) => ({ memoryId: i.record.id, ...i.read }));
    let discarded = 0;
    for (const memoryId of stale) {
      const asRead = await this.deps.memories.loadMemory(memoryId);
      if (asRead && (await discardIfStale(this.erasure, asRead))) discarded++;
    }
    for (const { memoryId } of synced) report.embedded.add(memoryId);
    for (const { memoryId } of unusable) {
      report.embedded.delete(memoryId);
      report.notEmbedded.add(memoryId);
    }
    // Counted by what was cleared, so a document that cannot be cleared ends the drain instead of looping.
    const cleared = discarded + (await markVectorSynced(this.deps.models, [...synced, ...unusable], at));
    report.cleared += cleared;
    return cleared;
  }

  /**
   * A store without the write lock (pgvector, MongoDB): the product may delete a memory, and forget
   * erase it, between the check above and the upsert. Asked again after it, a record whose memory
   * is gone is removed, unless another drain has replaced it since (deleteUnchanged). Only gone, not
   * "no longer flagged as read": another drain's sync clears the flag of a record that must stay.
   */
  private async takeBackOverrun(written: VectorRecord[]): Promise<void> {
    if (written.length === 0) return;
    const present = await presentMemories(
      this.deps.models,
      written.map((record) => record.id),
    );
    const gone = written.filter((record) => !present.has(record.id));
    if (gone.length) await this.deps.store.deleteUnchanged(gone);
  }

  /** Runs store writes under the fleet's vector write lock, when the store needs one (LanceDB). */
  readonly exclusive: Exclusive = (work) => (this.deps.exclusive ? this.deps.exclusive(work) : work());

  private get policy(): StagePolicy {
    return this.deps.policy ?? DEFAULT_POLICY;
  }
}

const DEFAULT_POLICY = stagePolicy();

/** What a drain read of a memory's flag: it clears the flag only while both are unchanged. */
type SyncRead = { textHash: string; flag?: string };
