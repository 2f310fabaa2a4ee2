import type { StagePolicy } from '@memfade/core';
import type { MemoryHolds, Models, RunRecord, RunRepository } from '@memfade/db';
import { enqueueBatchSubmit, type MemfadeQueues, type NightlyRunPayload } from '@memfade/queue';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { RunTracker } from '../runs/run-tracker.js';
import { Dispatcher, type ProducerBatchMode } from './dispatch.js';
import { selectDue } from './selection.js';

export type { ProducerBatchMode };

export interface NightlyRunDeps {
  models: Models;
  runs: RunRepository;
  tracker: RunTracker;
  queues: MemfadeQueues;
  /** A memory another open run holds is left to it (docs/design.md invariant 9). */
  holds: Pick<MemoryHolds, 'take' | 'count'>;
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
 * the whole collection in memory, oldest first) and hands each to the dispatcher (dispatch.ts),
 * which enqueues a compress job or records a batch request for it, in chunks. Past the per-run
 * cap it only counts what is left: those memories stay due for the next run.
 */
export async function processNightlyRun(
  job: Job<NightlyRunPayload>,
  deps: NightlyRunDeps,
): Promise<NightlyRunSummary> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, trigger, asOf, selection } = job.data;
  const at = new Date(asOf);
  await deps.runs.start({ runId, trigger, asOf: at });
  // The job back after its producer said it was done (its worker died before BullMQ recorded the
  // job's end): the run's memories are enqueued and counted, and the run may be finished. Producing
  // again would hold memories for a finished run, never to be released (simulate --seed 2306;
  // docs/design.md invariant 12): this attempt reports what the first one did.
  const earlierAttempt = await deps.runs.get(runId);
  if (earlierAttempt?.producerDoneAt) {
    deps.logger?.info(
      { runId, attempt: job.attemptsMade + 1 },
      `run ${runId}: its producer was done already; nothing produced again`,
    );
    return summaryOf(earlierAttempt);
  }
  deps.logger?.info(
    { runId, trigger, asOf, selection, attempt: job.attemptsMade + 1 },
    `run ${runId} started (${trigger})`,
  );
  // A run whose producer died holds its memories until finished: finished now, so tonight takes
  // them over instead of leaving them to it (docs/design.md invariant 12).
  await deps.tracker.finishDeadProducers(runId);
  const cap = deps.runMaxMemories ?? 0;
  const users = new Set<string>();
  let selected = 0;
  let deferred = 0;
  const dispatcher = new Dispatcher(runId, {
    queues: deps.queues,
    holds: deps.holds,
    ...(deps.batchMode && BATCH_TRIGGERS.includes(trigger) && { batchMode: deps.batchMode }),
    chunkSize: deps.chunkSize ?? 1000,
    onDispatched: (enqueued) => job.updateProgress({ selected, enqueued }),
  });
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
    await dispatcher.add({
      runId,
      memoryId: candidate.memoryId,
      target: candidate.target,
      userId: candidate.userId,
    });
  }
  const runMode = await dispatcher.finish();
  // A restarted producer (its worker died and the nightly job came back) does not find the memories
  // whose jobs of an earlier attempt ended meanwhile: they are not due any more. They are the run's
  // all the same, their ends counted on it, and they are among the memories it holds (an attempt
  // holds each memory before it enqueues it). Left out, the run finished as soon as this attempt's
  // number of jobs had ended, with the others still waiting (simulate --seed 323).
  const earlier = Math.max(0, (await deps.holds.count(runId)) - dispatcher.counts.held);
  selected += earlier;
  const enqueued = dispatcher.counts.enqueued + earlier;
  const { heldBack, inOtherRuns } = dispatcher.counts;
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
  deps.logger?.info({ runId, ...totals }, `run ${runId} enqueued ${enqueued} of ${selected} due memories`);
  await deps.tracker.producerDone(runId, totals);
  return { runId, ...totals, mode: runMode };
}

/** What a producer that was done reported, as its run record keeps it. */
function summaryOf(run: RunRecord): NightlyRunSummary {
  const { counts } = run;
  return {
    runId: run.runId,
    selected: counts.selected,
    enqueued: counts.enqueued,
    users: run.users,
    deferred: counts.deferred ?? 0,
    heldBack: counts.heldBack ?? 0,
    inOtherRuns: counts.inOtherRuns ?? 0,
    mode: run.batches?.mode ?? 'sync',
  };
}

function syncReason(trigger: string, batchMode: ProducerBatchMode | undefined, due: number): string {
  if (!batchMode) return 'MODEL_MODE=sync or a provider without a batch API';
  if (!BATCH_TRIGGERS.includes(trigger)) return `${trigger} runs are sync`;
  return `${due} due memories, fewer than BATCH_MIN_CALLS (${batchMode.minCalls})`;
}
