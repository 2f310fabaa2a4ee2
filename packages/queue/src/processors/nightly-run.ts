import type { StagePolicy } from '@memfade/core';
import type { Models, RunRepository } from '@memfade/db';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { enqueueCompress, type MemfadeQueues } from '../queues.js';
import { type CompressPayload, type NightlyRunPayload, QUEUES } from '../registry.js';
import type { RunTracker } from '../run-tracker.js';
import { selectDue } from '../selection.js';

export interface NightlyRunDeps {
  models: Models;
  runs: RunRepository;
  tracker: RunTracker;
  queues: MemfadeQueues;
  policy: StagePolicy;
  now: () => Date;
  /** Jobs per addBulk: large enough to amortise round trips, small enough to keep Redis responsive. */
  chunkSize?: number;
  /** At most this many due memories per run, oldest first (RUN_MAX_MEMORIES); 0 or absent = all. */
  runMaxMemories?: number;
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
}

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
  let batch: CompressPayload[] = [];
  // One chunk is enqueued while the scan reads the next: the two wait on different servers.
  let enqueuing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const chunk = batch;
    batch = [];
    await enqueuing;
    enqueuing = enqueueCompress(deps.queues, chunk).then(async (added) => {
      enqueued += added.enqueued;
      heldBack += added.heldBack;
      await job.updateProgress({ selected, enqueued });
    });
    // Handled here so a failure waits for the next flush to throw it, instead of crashing the process.
    enqueuing.catch(() => undefined);
  };
  for await (const candidate of selectDue(deps.models, deps.policy, at, selection)) {
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
  await flush();
  await enqueuing;
  if (deferred > 0) {
    deps.logger?.warn(
      { runId, runMaxMemories: cap, selected, deferred },
      `run ${runId} reached RUN_MAX_MEMORIES (${cap}): ${deferred} due memories left for the next run`,
    );
  }
  if (heldBack > 0) {
    deps.logger?.warn(
      { runId, heldBack },
      `run ${runId}: ${heldBack} due memories held back by failed jobs still kept; memfade retry-failed puts them back`,
    );
  }
  const totals = { selected, enqueued, users: users.size, deferred, heldBack };
  deps.logger?.info(
    { runId, ...totals },
    `run ${runId} enqueued ${enqueued} jobs for ${selected} due memories`,
  );
  await deps.tracker.producerDone(runId, totals);
  return { runId, ...totals };
}
