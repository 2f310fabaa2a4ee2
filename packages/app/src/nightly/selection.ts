import { dueCutoff, FUTURE_DATE_TOLERANCE_MS, type StagePolicy, type TargetStage } from '@memfade/core';
import {
  type DueMemory,
  enrolMemories,
  type Models,
  streamDueMemories,
  streamInvalidMemories,
} from '@memfade/db';
import type { Selection } from '@memfade/queue';

export interface Candidate {
  memoryId: string;
  userId: string;
  target: TargetStage;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The memories a run (nightly or backfill) would enqueue at `at`, oldest first across both
 * stages: an indexed range scan per stage, narrowed by the selection, streamed and merged by
 * creation date. The one place that decides what is due and in which order, so a dry run shows
 * exactly what the real run will do, and a run that stops early (--limit, RUN_MAX_MEMORIES)
 * leaves the youngest for later instead of starving V2.
 */
export async function* selectDue(
  models: Models,
  policy: StagePolicy,
  at: Date,
  selection: Selection,
  options: { enrolAll?: boolean } = {},
): AsyncGenerator<Candidate> {
  // Side-collection mode: memories memfade has never seen get their side document first (the due
  // scan reads the side collection). A nightly run enrols since its watermark; a backfill (enrolAll)
  // or a run for some users enrols their whole range, so a memory inserted late with an old date
  // is found. Nothing in prefix mode.
  await enrolMemories(models, {
    through: dueCutoff('v1', at, policy),
    all: options.enrolAll,
    userIds: selection.userIds,
  });
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
  const streams = stages.map((target) => {
    const cutoff = dueCutoff(target, at, policy).getTime();
    const createdBefore = new Date(olderThan === undefined ? cutoff : Math.min(cutoff, olderThan));
    const stage = target === 'v1' ? 'raw' : 'v1';
    return streamDueMemories(models, { stage, createdBefore, userIds: selection.userIds });
  });
  // The job is named after the stage the memory is due to reach, not the next one: a raw memory
  // already V2-old gets one job that applies V1 then V2, and a run scanning between those two
  // writes (it sees V1) names the same job, so BullMQ adds nothing.
  const v2Cutoff = dueCutoff('v2', at, policy).getTime();
  const finalTarget = (due: DueMemory): Candidate['target'] =>
    due.stage === 'v1' || (stages.includes('v2') && due.createdAt.getTime() <= v2Cutoff) ? 'v2' : 'v1';
  for await (const due of onceEach(oldestFirst(streams))) {
    yield { memoryId: due.memoryId, userId: due.userId, target: finalTarget(due) };
  }
  // Documents the scan cannot place (no valid date, a date in the future, unknown stage) still go
  // through a job, so each fails with its reason recorded on the document and in the run instead
  // of hiding.
  const futureAfter = new Date(at.getTime() + FUTURE_DATE_TOLERANCE_MS);
  for await (const bad of streamInvalidMemories(models, { userIds: selection.userIds, futureAfter })) {
    const target = bad.stage === 'v1' ? 'v2' : 'v1';
    if (stages.includes(target)) yield { memoryId: bad.memoryId, userId: bad.userId, target };
  }
}

/**
 * Each memory once. A memory a worker moves from raw to V1 while the scan runs (a retried
 * producer, whose first attempt's jobs are being worked) can be read by both stage scans; its
 * creation date does not change, so the two copies meet at the same place in the merged stream,
 * among the memories created at that same instant: only those ids need remembering.
 */
export async function* onceEach(merged: AsyncIterable<DueMemory>): AsyncGenerator<DueMemory> {
  let at = Number.NaN;
  const seenAt = new Set<string>();
  for await (const due of merged) {
    const time = due.createdAt.getTime();
    if (time !== at) {
      at = time;
      seenAt.clear();
    }
    if (seenAt.has(due.memoryId)) continue;
    seenAt.add(due.memoryId);
    yield due;
  }
}

/** Merges streams that are each sorted by creation date into one sorted stream. */
async function* oldestFirst(streams: AsyncGenerator<DueMemory>[]): AsyncGenerator<DueMemory> {
  try {
    const heads = await Promise.all(streams.map((s) => s.next()));
    for (;;) {
      let oldest = -1;
      for (const [i, head] of heads.entries()) {
        if (head.done) continue;
        const best = heads[oldest];
        if (!best || best.done || head.value.createdAt < best.value.createdAt) oldest = i;
      }
      const head = heads[oldest];
      if (!head || head.done) return;
      yield head.value;
      heads[oldest] = await streams[oldest]!.next();
    }
  } finally {
    // Stopped early (a limit): close the cursors still open.
    await Promise.all(streams.map((s) => s.return(undefined)));
  }
}
