import { dueCutoff, type StagePolicy } from '@memfade/core';
import { type Models, streamDueMemories, streamInvalidMemories } from '@memfade/db';
import type { Selection } from './registry.js';

export interface Candidate {
  memoryId: string;
  userId: string;
  target: 'v1' | 'v2';
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The memories a run (nightly or backfill) would enqueue at `at`: an indexed range scan per
 * stage, narrowed by the selection, streamed. The one place that decides what is due, so a
 * dry run shows exactly what the real run will do.
 */
export async function* selectDue(
  models: Models,
  policy: StagePolicy,
  at: Date,
  selection: Selection,
): AsyncGenerator<Candidate> {
  let count = 0;
  for await (const candidate of scan(models, policy, at, selection)) {
    if (selection.limit !== undefined && count >= selection.limit) return;
    count++;
    yield candidate;
  }
}

async function* scan(
  models: Models,
  policy: StagePolicy,
  at: Date,
  selection: Selection,
): AsyncGenerator<Candidate> {
  const stages = selection.stages ?? ['v1', 'v2'];
  const olderThan =
    selection.olderThanDays === undefined ? undefined : at.getTime() - selection.olderThanDays * DAY_MS;
  for (const target of stages) {
    const cutoff = dueCutoff(target, at, policy).getTime();
    const createdBefore = new Date(olderThan === undefined ? cutoff : Math.min(cutoff, olderThan));
    const stage = target === 'v1' ? 'raw' : 'v1';
    for await (const due of streamDueMemories(models, { stage, createdBefore, userIds: selection.userIds })) {
      yield { memoryId: due.memoryId, userId: due.userId, target };
    }
  }
  // Documents the scan cannot place (no valid date, unknown stage) still go through a job, so
  // each fails with its reason recorded on the document and in the run instead of hiding.
  for await (const bad of streamInvalidMemories(models, { userIds: selection.userIds })) {
    const target = bad.stage === 'v1' ? 'v2' : 'v1';
    if (stages.includes(target)) yield { memoryId: bad.memoryId, userId: bad.userId, target };
  }
}
