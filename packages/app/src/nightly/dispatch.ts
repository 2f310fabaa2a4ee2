import type { BatchCompressor } from '@memfade/core';
import type { BatchRepository, MemoryHolds } from '@memfade/db';
import { type CompressPayload, enqueueCompress, type MemfadeQueues } from '@memfade/queue';
import { requestId } from '../batch/batch-requests.js';

/**
 * A due memory: its compress job's payload, and its user. A batch request records the user: forget
 * finds a user's requests by it after the product deleted their memories, and grouped requests
 * (MEMORIES_PER_REQUEST) are one user's.
 */
export type DuePayload = CompressPayload & { userId: string };

/** Batch mode, when MODEL_MODE=batch and the provider has a batch API (README "Batch mode"). */
export interface ProducerBatchMode {
  model: BatchCompressor;
  batches: BatchRepository;
  /** Runs with fewer due memories stay sync (BATCH_MIN_CALLS). */
  minCalls: number;
}

export interface DispatchDeps {
  queues: MemfadeQueues;
  /** A memory another open run holds is left to it (docs/design.md invariant 9). */
  holds: Pick<MemoryHolds, 'take'>;
  /** Absent: the run is sync. */
  batchMode?: ProducerBatchMode;
  /** Memories per dispatch (one holds insert, one addBulk or one insert of request records). */
  chunkSize: number;
  /** Told after each chunk is dispatched, with the run's total so far. */
  onDispatched?: (enqueued: number) => Promise<void>;
}

/**
 * Where the producer's due memories go (docs/design.md §1 and §6). Each chunk is held for the run
 * first, so two runs fired together split the memories instead of both paying for them; then it
 * is enqueued as compress jobs (sync) or recorded as pending batch requests (batch). The mode is
 * decided once, when BATCH_MIN_CALLS memories are due or the scan ends short of them: until then
 * the memories wait here, neither enqueued nor recorded. One chunk is dispatched while the scan
 * reads the next: the two wait on different servers.
 */
export class Dispatcher {
  private due: DuePayload[] = [];
  private mode: 'sync' | 'batch' | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  /**
   * Jobs enqueued or requests recorded; due memories kept back by a failed job; left to other runs;
   * memories this dispatcher holds for the run (taken now, or already the run's).
   */
  readonly counts = { enqueued: 0, heldBack: 0, inOtherRuns: 0, held: 0 };

  constructor(
    private readonly runId: string,
    private readonly deps: DispatchDeps,
  ) {
    this.mode = deps.batchMode ? undefined : 'sync';
  }

  async add(payload: DuePayload): Promise<void> {
    this.due.push(payload);
    if (this.due.length >= this.deps.chunkSize) await this.flush(false);
  }

  /** Dispatches what is left once the scan has ended; the run's mode. */
  async finish(): Promise<'sync' | 'batch'> {
    await this.flush(true);
    await this.inFlight;
    return this.mode ?? 'sync';
  }

  private async flush(scanEnded: boolean): Promise<void> {
    const { batchMode } = this.deps;
    if (this.mode === undefined && batchMode) {
      if (!scanEnded && this.due.length < batchMode.minCalls) return;
      this.mode = this.due.length >= batchMode.minCalls ? 'batch' : 'sync';
    }
    const due = this.due;
    this.due = [];
    await this.inFlight;
    if (due.length === 0) return;
    const mine = await this.deps.holds.take(
      this.runId,
      due.map((payload) => payload.memoryId),
    );
    const chunk = due.filter((payload) => mine.has(payload.memoryId));
    this.counts.inOtherRuns += due.length - chunk.length;
    this.counts.held += chunk.length;
    const added =
      this.mode === 'batch' && batchMode
        ? recordRequests(this.runId, chunk, batchMode).then((n) => ({ enqueued: n, heldBack: 0 }))
        : enqueueCompress(
            this.deps.queues,
            chunk.map(({ userId: _userId, ...payload }) => payload),
          );
    this.inFlight = added.then(async ({ enqueued, heldBack }) => {
      this.counts.enqueued += enqueued;
      this.counts.heldBack += heldBack;
      await this.deps.onDispatched?.(this.counts.enqueued);
    });
    // Handled here so a failure waits for the next flush to throw it, instead of crashing the process.
    this.inFlight.catch(() => undefined);
  }
}

/**
 * One pending request record per due memory, round 0. Each memory counts once in `enqueued`: the
 * batch path ends it through the run tracker exactly once, whichever way it goes (batch, sync).
 */
async function recordRequests(runId: string, chunk: DuePayload[], mode: ProducerBatchMode): Promise<number> {
  await mode.batches.addRequests(
    chunk.map(({ memoryId, target, userId }) => ({
      userId,
      runId,
      round: 0,
      customId: requestId(mode.model, runId, 0, memoryId),
      memoryId,
      target,
      state: 'pending' as const,
      attempts: 0,
    })),
  );
  return chunk.length;
}
