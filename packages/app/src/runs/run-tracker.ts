import type { MemoryStore } from '@memfade/core';
import type { PaidItem, RunRepository } from '@memfade/db';
import type { MemfadeQueues } from '@memfade/queue';
import { deadCompressJobs, deadJobMessage, producerDeath } from './dead-work.js';
import {
  finishInterrupted,
  finishRun,
  isComplete,
  metricsFailed,
  RUN_KEYS_TTL_S,
  type RunBooks,
  resettleRun,
  runKey,
} from './finish-run.js';
import { type MemoryEnd, memoryKey } from './outcome.js';
import { settle } from './settle.js';
import { Together } from './together.js';

export { settle };

/** Calls without a counted reply, at what they could cost at most (RunRecord.unanswered); signed. */
export interface Unanswered {
  calls: number;
  tokens: number;
  usd: number;
}

/**
 * What the tracker counts of a run's batch requests left without an outcome (batch-recovery.ts):
 * given-up requests and what their earlier rounds paid for (applied or thrown away). The recovery
 * only decides; the run tracker keeps the books (docs/design.md §6).
 */
export type RecoveryOutcome = { resumed: true } | { resumed: false; givenUp: number; spent: PaidItem[] };

/** The run's books (runs, Redis, holds, metrics, logger: finish-run.ts), and what the tracker alone asks. */
export interface RunTrackerDeps extends RunBooks {
  /** Where a job that died without its processor's say gets its reason recorded. */
  memories?: Pick<MemoryStore, 'recordError'>;
  queues: MemfadeQueues;
  /**
   * Asked before an idle run is finished: batch requests of the run still without an outcome are
   * resumed, or given up and counted unprocessed (batch-recovery.ts).
   */
  batchRecovery?: {
    resumeOrGiveUp(runId: string): Promise<RecoveryOutcome>;
    giveUp(runId: string): Promise<Extract<RecoveryOutcome, { resumed: false }>>;
  };
}

/** Paid calls (or earlier rounds) and a change to the run's unanswered calls, written together. */
type Spending = { items: PaidItem[]; unanswered?: Unanswered };

/**
 * The one owner of run accounting: it hears that a producer is done, that a memory's work ended,
 * and sweeps for runs whose jobs are all gone; it decides when a run is finished and what its
 * counts are.
 * The RunRepository only stores; finish-run.ts closes a finished run's books.
 *
 * Two Redis keys per open run:
 * - `accounted:<runId>`, the set of memories already counted, by memory and target (outcome.ts
 *   memoryKey): a job can run again after it counted (its worker died, or lost Redis, before
 *   BullMQ marked it completed), and counted twice the run would finish while jobs are still in
 *   flight. A crash between the claim and the counters leaves
 *   them short instead, which the sweep and the settlement from the memories repair.
 * - `open:<runId>`, set when the producer is done: a sweep that finds it gone knows Redis lost its
 *   data (and the run's jobs with it), so the run is interrupted, not complete.
 */
export class RunTracker {
  /** Memories of a run ending while its last count is written are counted together in the next write. */
  private readonly ends = new Together<MemoryEnd>((runId, ended) => this.memoriesEnded(runId, ended));
  /** Likewise the run's paid calls and unanswered ones (each call's, as it is sent and answered). */
  private readonly spends = new Together<Spending>((runId, spends) => this.writeSpent(runId, spends));

  constructor(private readonly deps: RunTrackerDeps) {}

  private key(kind: 'accounted' | 'open', runId: string): string {
    return runKey(this.deps.prefix, kind, runId);
  }

  /** The producer has enqueued all it will; the run may already be complete (nothing was due). */
  async producerDone(
    runId: string,
    totals: {
      selected: number;
      enqueued: number;
      users: number;
      deferred: number;
      heldBack: number;
      inOtherRuns?: number;
    },
  ): Promise<void> {
    await this.deps.redis.set(this.key('open', runId), '1', 'EX', RUN_KEYS_TTL_S);
    await this.deps.runs.producerDone(runId, totals);
    const run = await this.deps.runs.state(runId);
    if (run && isComplete(run)) await finishRun(this.deps, runId, 'counted');
  }

  /**
   * A memory's work in the run ended for good (completed, no-op, or failed with no attempt left):
   * counted once under its memory and target (outcome.ts memoryKey), and the run finished when
   * that was its last memory. A memory of a run already finished (its job put back by `memfade
   * retry-failed`) settles that run's counts again. Resolves once it is counted: with the other
   * memories of the run that ended while the run's last count was written, in one write (together.ts).
   */
  memoryEnded(runId: string, end: MemoryEnd): Promise<void> {
    return this.ends.add(runId, end);
  }

  /**
   * Many memories of one run ended (a chunk of a batch's results): each counted once as in
   * memoryEnded, all of them in one write to the run. `then` writes what else the caller records
   * about them (batch mode's request states and counters) after they are counted and before the
   * run can be seen finished, so a finished run's record holds all of it.
   */
  async memoriesEnded(
    runId: string,
    ended: MemoryEnd[],
    then: () => Promise<void> = async () => {},
  ): Promise<void> {
    // The reasons before the claim: a worker killed between its claim and the reasons left a
    // failure counted by nobody (the job's retry finds the claim taken) and its reason nowhere,
    // so the run settled it as a no-op and exited 0 (found by simulate --seed 9). A reason
    // recorded twice is one entry per memory and stage.
    for (const end of ended) if (end.error) await this.deps.runs.recordError(runId, end.error);
    const keys = ended.map(memoryKey);
    const claimed = keys.length ? await this.claim(runId, keys) : [];
    const mine = ended.filter((_, i) => claimed[i]);
    if (mine.length === 0) return then();
    const run = await this.deps.runs.addMemoryEnds(runId, mine);
    for (const end of mine) await this.metricsOf(end);
    await then();
    if (run === null) return resettleRun(this.deps, runId);
    if (isComplete(run)) await finishRun(this.deps, runId, 'counted');
  }

  /**
   * Lists an error under the run without counting a memory's end: for a job its producer did not
   * enqueue (e.g. a malformed payload added by hand). Nothing is recorded for a run that does not exist.
   */
  recordError(runId: string, error: { memoryId: string; stage: string; message: string }): Promise<boolean> {
    return this.deps.runs.recordError(runId, error);
  }

  /** Batch mode's counters on the run: batches submitted and ended, requests given up, first result. */
  batchCounted(
    runId: string,
    counts: Parameters<RunRepository['addBatchCounts']>[1],
    options?: Parameters<RunRepository['addBatchCounts']>[2],
  ): Promise<void> {
    return this.deps.runs.addBatchCounts(runId, counts, options);
  }

  /**
   * Calls the run paid for that no memory's end will count: the earlier rounds of batch requests
   * given up or erased (docs/design.md invariant 9: every paid line is counted). `unanswered`: the
   * signed change to the run's unanswered calls that this spending settles, in the same write.
   * Resolves once written: with what else the run's calls spent while its last spending was
   * written, in one write (together.ts).
   */
  spent(runId: string, items: PaidItem[], unanswered?: Unanswered): Promise<void> {
    return this.spends.add(runId, { items, unanswered });
  }

  /** Calls without a counted reply, at what they could cost at most (RunRecord.unanswered); signed. */
  unanswered(runId: string, change: Unanswered): Promise<void> {
    return this.spends.add(runId, { items: [], unanswered: change });
  }

  /** A group of spendings of one run: one write of the run, one of its users' ledger. */
  private async writeSpent(runId: string, spends: Spending[]): Promise<void> {
    const items = spends.flatMap((s) => s.items);
    const changes = spends.flatMap((s) => (s.unanswered ? [s.unanswered] : []));
    const unanswered = changes.length
      ? changes.reduce((sum, c) => ({
          calls: sum.calls + c.calls,
          tokens: sum.tokens + c.tokens,
          usd: sum.usd + c.usd,
        }))
      : undefined;
    await this.deps.runs.addSpending(runId, items, unanswered);
    if (items.length) await this.deps.metrics?.spent(items).catch(metricsFailed(this.deps.logger));
  }

  /** The memory's end in the fleet's counters, as counted here; best effort (the books are the record). */
  private metricsOf(end: MemoryEnd): Promise<void> | undefined {
    const { target, outcome, transitions, discarded, reason, overBudget } = end;
    return this.deps.metrics
      ?.memoryCounted({
        target,
        outcome: overBudget && outcome === 'noop' ? 'over_budget' : outcome,
        transitions,
        discarded,
        reason,
      })
      .catch(metricsFailed(this.deps.logger));
  }

  /**
   * Finishes every run whose producer is done once the compress and batch queues have nothing
   * waiting, delayed or active. A run normally finishes by its own counts, but a crash between a job's work
   * and its accounting leaves a count short, and when Redis loses its data the jobs are gone: an
   * idle queue proves nothing of theirs is left to wait for.
   */
  async sweep(): Promise<string[]> {
    // Most sweeps come while a night is running: Redis alone answers them, without reading runs.
    if (await this.queuesBusy()) return [];
    // Holds a finished run left behind (its worker died between the finish and their release).
    await this.deps.holds?.releaseFinished();
    const finished = await this.finishDeadProducers();
    const open = await this.deps.runs.listUnfinished();
    if (open.length === 0) return finished;
    // Asked again after reading the runs: a run whose producer is done had enqueued all its jobs
    // before it was listed, so queues idle now prove it has nothing left to wait for.
    if (await this.queuesBusy()) return [];
    // The nightly (producer) queue may hold a run that is about to enqueue: those runs have no
    // producerDoneAt yet, so they are not in `open`.
    for (const run of open) {
      // Idle queues with requests left: the batch jobs ended for good before they settled them.
      const recovery = await this.deps.batchRecovery?.resumeOrGiveUp(run.runId);
      if (recovery?.resumed) continue;
      const givenUp = recovery?.givenUp ?? 0;
      if (givenUp) {
        await this.spent(run.runId, recovery?.spent ?? []);
        await this.batchCounted(run.runId, { givenUp });
      }
      await this.countDeadJobs(run.runId);
      if (await finishRun(this.deps, run.runId, 'idle', givenUp)) finished.push(run.runId);
    }
    return finished;
  }

  /**
   * Compress jobs of the run that BullMQ failed without running its processor to the end: their
   * workers died while holding them, past the stalled limit (a crash loop). No job end counted them,
   * so the run would finish saying nothing of their memories, which wait for the failed job to
   * expire: each is counted failed, with the reason on the run (docs/design.md invariant 15).
   */
  private async countDeadJobs(runId: string): Promise<void> {
    const dead = await deadCompressJobs(this.deps.queues, runId);
    if (dead.length === 0) return;
    for (const job of dead) {
      await this.deps.memories?.recordError(job.data.memoryId, {
        stage: job.data.target,
        message: deadJobMessage(job.failedReason),
        at: new Date(),
        attempts: job.attemptsMade,
      });
    }
    await this.memoriesEnded(
      runId,
      dead.map((job) => ({
        target: job.data.target,
        memoryId: job.data.memoryId,
        outcome: 'failed' as const,
        error: {
          memoryId: job.data.memoryId,
          stage: job.data.target,
          message: deadJobMessage(job.failedReason),
        },
      })),
    );
  }

  /**
   * Finishes `interrupted` every run whose producer died before it was done: its nightly job failed
   * for good (a worker killed past BullMQ's stalled limit, every attempt failed) or is gone. Its
   * holds are released, so no memory waits on a dead run (docs/design.md invariant 12). Safe while
   * jobs run: a compress job the dead producer enqueued keeps its id, so no other run can add a
   * second request for its memory, and its late end settles the finished run again. Called by the
   * sweep and by every producer before it takes holds (`except`: its own run, alive by definition).
   */
  async finishDeadProducers(except?: string): Promise<string[]> {
    const finished: string[] = [];
    for (const { runId } of await this.deps.runs.listProducing()) {
      if (runId === except) continue;
      const death = await producerDeath(this.deps.queues, runId);
      if (death && (await this.finishDead(runId, death))) finished.push(runId);
    }
    return finished;
  }

  private async finishDead(runId: string, death: string): Promise<boolean> {
    const run = await this.deps.runs.state(runId);
    if (!run || run.finishedAt || run.producerDoneAt) return false;
    // Its compress jobs that died with it: counted failed, the reason on their memories.
    await this.countDeadJobs(runId);
    const recovery = await this.deps.batchRecovery?.giveUp(runId);
    if (recovery?.spent.length) await this.spent(runId, recovery.spent);
    return finishInterrupted(this.deps, runId, run, death);
  }

  /**
   * Whether the compress or batch queue holds a job waiting, delayed or active. Batch mode's submit
   * and poll jobs stand for requests in flight: a run with an open batch is not idle while its
   * compress queue is.
   */
  private async queuesBusy(): Promise<boolean> {
    for (const queue of [this.deps.queues.compress, this.deps.queues.batch]) {
      const counts = await queue.getJobCounts(
        'waiting',
        'active',
        'delayed',
        'prioritized',
        'waiting-children',
      );
      if (Object.values(counts).some((n) => n > 0)) return true;
    }
    return false;
  }

  /** Whether each memory is counted by this call: true for the first claim of its key in the run. */
  private async claim(runId: string, keys: string[]): Promise<boolean[]> {
    const key = this.key('accounted', runId);
    // One round trip without MULTI: each claim is an SADD alone; the TTL only cleans up after a
    // run that never finished, and the next claim sets it again.
    const pipeline = this.deps.redis.pipeline();
    for (const member of keys) pipeline.sadd(key, member);
    const replies = (await pipeline.expire(key, RUN_KEYS_TTL_S).exec()) as [Error | null, number][];
    return keys.map((_, i) => {
      const [error, added] = replies[i]!;
      if (error) throw error;
      return added === 1;
    });
  }
}
