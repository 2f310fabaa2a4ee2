import { dueCutoff, type StagePolicy } from '@memfade/core';
import { type Models, type RunRepository, streamDueMemories, streamInvalidMemories } from '@memfade/db';
import type { Job } from 'bullmq';
import { enqueueCompress, type MemfadeQueues } from '../queues.js';
import { type CompressPayload, type NightlyRunPayload, QUEUES, type Selection } from '../registry.js';

export interface NightlyRunDeps {
  models: Models;
  runs: RunRepository;
  queues: MemfadeQueues;
  policy: StagePolicy;
  now: () => Date;
  /** Jobs per addBulk: large enough to amortise round trips, small enough to keep Redis responsive. */
  chunkSize?: number;
}

export interface NightlyRunSummary {
  runId: string;
  selected: number;
  enqueued: number;
  users: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The producer: streams every due memory from MongoDB (an indexed range scan per stage, never
 * the whole collection in memory) and enqueues one compress job each, in chunks.
 */
export async function processNightlyRun(
  job: Job<NightlyRunPayload>,
  deps: NightlyRunDeps,
): Promise<NightlyRunSummary> {
  const { runId, trigger, asOf, selection } = QUEUES.nightly.payload.parse(job.data);
  const at = new Date(asOf);
  await deps.runs.start({ runId, trigger, asOf: at });
  const chunkSize = deps.chunkSize ?? 1000;
  const users = new Set<string>();
  let selected = 0;
  let enqueued = 0;
  let batch: CompressPayload[] = [];
  const flush = async () => {
    enqueued += await enqueueCompress(deps.queues, batch);
    batch = [];
    await job.updateProgress({ selected, enqueued });
  };
  for await (const candidate of candidates(at, selection, deps)) {
    if (selection.limit !== undefined && selected >= selection.limit) break;
    selected++;
    users.add(candidate.userId);
    batch.push({ runId, memoryId: candidate.memoryId, target: candidate.target });
    if (batch.length >= chunkSize) await flush();
  }
  await flush();
  await deps.runs.producerDone(runId, { selected, enqueued, users: users.size });
  await deps.runs.finishIfComplete(runId, deps.now());
  return { runId, selected, enqueued, users: users.size };
}

interface Candidate {
  memoryId: string;
  userId: string;
  target: 'v1' | 'v2';
}

async function* candidates(at: Date, selection: Selection, deps: NightlyRunDeps): AsyncGenerator<Candidate> {
  const stages = selection.stages ?? ['v1', 'v2'];
  const olderThan =
    selection.olderThanDays === undefined ? undefined : at.getTime() - selection.olderThanDays * DAY_MS;
  for (const target of stages) {
    const cutoff = dueCutoff(target, at, deps.policy).getTime();
    const createdBefore = new Date(olderThan === undefined ? cutoff : Math.min(cutoff, olderThan));
    const stage = target === 'v1' ? 'raw' : 'v1';
    for await (const due of streamDueMemories(deps.models, {
      stage,
      createdBefore,
      userIds: selection.userIds,
    })) {
      yield { memoryId: due.memoryId, userId: due.userId, target };
    }
  }
  // Documents the scan cannot place (no valid date, unknown stage) still go through a job, so
  // each fails with its reason recorded on the document and in the run instead of hiding.
  for await (const bad of streamInvalidMemories(deps.models, { userIds: selection.userIds })) {
    const target = bad.stage === 'v1' ? 'v2' : 'v1';
    if (stages.includes(target)) yield { memoryId: bad.memoryId, userId: bad.userId, target };
  }
}
