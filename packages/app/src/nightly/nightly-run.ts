import type { BatchCompressor, StagePolicy } from '@memfade/core';
import type { BatchRepository, MemoryHolds, Models, RunRepository } from '@memfade/db';
import {
  type CompressPayload,
  enqueueBatchSubmit,
  enqueueCompress,
  type MemfadeQueues,
  type NightlyRunPayload,
  QUEUES,
} from '@memfade/queue';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { requestId } from '../batch/batch-requests.js';
import type { RunTracker } from '../runs/run-tracker.js';
import { selectDue } from './selection.js';

/** Batch mode, when MODEL_MODE=batch and the provider has a batch API (README "Batch mode"). */
export interface ProducerBatchMode {
  model: BatchCompressor;
  batches: BatchRepository;
  /** Runs with fewer due memories stay sync (BATCH_MIN_CALLS). */
  minCalls: number;
}

export interface NightlyRunDeps {
  models: Models;
  runs: RunRepository;
  tracker: RunTracker;
  queues: MemfadeQueues;
  /** A memory another open run holds is left to it (docs/design.md invariant 9). */
  holds: Pick<MemoryHolds, 'take'>;
  policy: StagePolicy;
  now: () => Date;
  /** Jobs per addBulk: large enough to amortise round trips, small enough to keep Redis responsive. */
  chunkSize?: number;
  /** At most this many due memories per run, oldest first (RUN_MAX_MEMORIES); 0 or absent = all. */
  runMaxMemories?: number;
  /** Absent: every run is sync. */
  batchMode?: ProducerBatchMode;
  logger?: Logger;
}

export interface NightlyRunSummary {
  runId: string;
  selected: number;
  enqueued: number;
  users: number;
  /** Due memories left for the next run by the cap. */
  deferred: number;
  /** Due memories whose failed job is still kept, so no new job could be added for them. */
  heldBack: number;
  /** Due memories another open run holds with a request in flight: left to it. */
  inOtherRuns: number;
  /** How the run calls the model: one compress job per memory, or batches. */
  mode: 'sync' | 'batch';
}

/** Scheduled and run-now nights may use batches; backfills and demos stay sync. */
const BATCH_TRIGGERS: readonly string[] = ['schedule', 'manual'];

/**
 * The producer: streams every due memory from MongoDB (an indexed range scan per stage, never
 * the whole collection in memory, oldest first) and enqueues one compress job each, in chunks.
 * Past the per-run cap it only counts what is left: those memories stay due for the next run.
 */
export async function processNightlyRun(
  job: Job<NightlyRunPayload>,
  deps: NightlyRunDeps,
): Promise<NightlyRunSummary> {
  const { runId, trigger, asOf, selection } = QUEUES.nightly.payload.parse(job.data);
  const at = new Date(asOf);
  await deps.runs.start({ runId, trigger, asOf: at });
  deps.logger?.info(
    { runId, trigger, asOf, selection, attempt: job.attemptsMade + 1 },
    `run ${runId} started (${trigger})`,
  );
  const chunkSize = deps.chunkSize ?? 1000;
  const cap = deps.runMaxMemories ?? 0;
  const users = new Set<string>();
  let selected = 0;
  let enqueued = 0;
  let deferred = 0;
  let heldBack = 0;
  let inOtherRuns = 0;
  let batch: CompressPayload[] = [];
  // Batch mode is decided once BATCH_MIN_CALLS memories are due (or the scan ends short of them):
  // until then the memories wait here, neither enqueued nor recorded.
  const batchMode = deps.batchMode && BATCH_TRIGGERS.includes(trigger) ? deps.batchMode : undefined;
  let mode: 'sync' | 'batch' | undefined = batchMode ? undefined : 'sync';
  let scanned = false;
  // One chunk is enqueued while the scan reads the next: the two wait on different servers.
  let enqueuing: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (mode === undefined) {
      if (!scanned && batch.length < batchMode!.minCalls) return;
      mode = batch.length >= batchMode!.minCalls ? 'batch' : 'sync';
    }
    const due = batch;
    batch = [];
    await enqueuing;
    // Taken before anything is enqueued or recorded: two runs fired together (any modes) split
    // the memories between them instead of both paying for them.
    const mine = await deps.holds.take(
      runId,
      due.map((payload) => payload.memoryId),
    );
    const chunk = due.filter((payload) => mine.has(payload.memoryId));
    inOtherRuns += due.length - chunk.length;
    const add =
      mode === 'batch'
        ? recordRequests(runId, chunk, batchMode!).then((n) => ({ enqueued: n, heldBack: 0 }))
        : enqueueCompress(deps.queues, chunk);
    enqueuing = add.then(async (added) => {
      enqueued += added.enqueued;
      heldBack += added.heldBack;
      await job.updateProgress({ selected, enqueued });
    });
    // Handled here so a failure waits for the next flush to throw it, instead of crashing the process.
    enqueuing.catch(() => undefined);
  };
  for await (const candidate of selectDue(deps.models, deps.policy, at, selection, {
    enrolAll: trigger === 'backfill',
  })) {
    selected++;
    // Counted, not enqueued: the report says how many wait, the next run takes them oldest first.
    if (cap > 0 && selected > cap) {
      deferred++;
      continue;
    }
    users.add(candidate.userId);
    batch.push({ runId, memoryId: candidate.memoryId, target: candidate.target });
    if (batch.length >= chunkSize) await flush();
  }
  scanned = true;
  await flush();
  await enqueuing;
  // Set in flush(), which TypeScript does not follow.
  const runMode = (mode as 'sync' | 'batch' | undefined) ?? 'sync';
  await deps.runs.setBatchMode(runId, {
    mode: runMode,
    ...(runMode === 'sync' && { reason: syncReason(trigger, deps.batchMode, selected - deferred) }),
  });
  // Every request is recorded before the first is submitted: the submit job builds them.
  if (runMode === 'batch') await enqueueBatchSubmit(deps.queues, { runId, round: 0 });
  if (deferred > 0) {
    deps.logger?.warn(
      { runId, runMaxMemories: cap, selected, deferred },
      `run ${runId} reached RUN_MAX_MEMORIES (${cap}): ${deferred} due memories left for the next run`,
    );
  }
  if (inOtherRuns > 0) {
    deps.logger?.warn(
      { runId, inOtherRuns },
      `run ${runId}: ${inOtherRuns} due memories are held by another open run with requests in flight; left to it`,
    );
  }
  if (heldBack > 0) {
    deps.logger?.warn(
      { runId, heldBack },
      `run ${runId}: ${heldBack} due memories held back by failed jobs still kept; memfade retry-failed puts them back`,
    );
  }
  const totals = { selected, enqueued, users: users.size, deferred, heldBack, inOtherRuns };
  deps.logger?.info(
    { runId, ...totals },
    `run ${runId} enqueued ${enqueued} jobs for ${selected} due memories`,
  );
  await deps.tracker.producerDone(runId, totals);
  return { runId, ...totals, mode: runMode };
}

/**
 * One pending request record per due memory, round 0. Each memory counts once in `enqueued`: the
 * batch path ends it through the run tracker exactly once, whichever way it goes (batch, sync).
 */
async function recordRequests(
  runId: string,
  chunk: CompressPayload[],
  mode: ProducerBatchMode,
): Promise<number> {
  await mode.batches.addRequests(
    chunk.map(({ memoryId, target }) => ({
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

function syncReason(trigger: string, batchMode: ProducerBatchMode | undefined, due: number): string {
  if (!batchMode) return 'MODEL_MODE=sync or a provider without a batch API';
  if (!BATCH_TRIGGERS.includes(trigger)) return `${trigger} runs are sync`;
  return `${due} due memories, fewer than BATCH_MIN_CALLS (${batchMode.minCalls})`;
}
