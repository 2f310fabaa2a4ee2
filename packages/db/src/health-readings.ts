import { valueAt } from './mapping.js';
import type { Models } from './models.js';
import { ownedOnly } from './ownership.js';
import type { RunRecord } from './run-record.js';

/**
 * What the alert rules watch in MongoDB, read at scrape time by the dashboard's /metrics
 * (app runs/metrics-readings.ts; docs/operations.md "Alerts"): the runs still open, which runs
 * hold memories (holds.ts), and the vector outbox (docs/design.md invariant 4). Each is one or two
 * small indexed queries, so a scrape every 15 s costs the database next to nothing.
 */

/** A run not finished yet, as the open-run gauges show it. */
export type OpenRun = Pick<
  RunRecord,
  'runId' | 'trigger' | 'startedAt' | 'producerDoneAt' | 'counts' | 'cost' | 'batches'
>;

/** The runs not finished, oldest first (a few at most: a night, a manual run). */
export function openRuns(models: Models): Promise<OpenRun[]> {
  return models.runs
    .find(
      { finishedAt: { $exists: false } },
      {
        _id: 0,
        runId: 1,
        trigger: 1,
        startedAt: 1,
        producerDoneAt: 1,
        counts: 1,
        cost: 1,
        'batches.mode': 1,
      },
    )
    .sort({ startedAt: 1 })
    .lean<OpenRun[]>()
    .exec();
}

/** Memories held (holds.ts) by each run, and whether that run is open, finished or gone. */
export async function holdsByRun(
  models: Models,
): Promise<{ runId: string; memories: number; run: 'open' | 'finished' | 'gone' }[]> {
  const groups = await models.holds.collection
    .aggregate<{ _id: string; n: number }>([{ $group: { _id: '$runId', n: { $sum: 1 } } }])
    .toArray();
  if (groups.length === 0) return [];
  const runs = await models.runs.collection
    .find({ runId: { $in: groups.map((g) => String(g._id)) } }, { projection: { runId: 1, finishedAt: 1 } })
    .toArray();
  const finished = new Map(runs.map((run) => [String(run.runId), run.finishedAt !== undefined]));
  return groups.map((g) => {
    const state = finished.get(String(g._id));
    return {
      runId: String(g._id),
      memories: g.n,
      run: state === undefined ? 'gone' : state ? 'finished' : 'open',
    };
  });
}

/**
 * The vector outbox: memories whose record is behind, and the oldest stage write among them
 * (`compressedAt`: a memory flagged by `memfade reindex` or a rollback carries its last stage's
 * time, so after a reindex the age reads as old as that stage until the drain catches up).
 */
export async function vectorOutbox(models: Models): Promise<{ pending: number; oldestAt?: Date }> {
  const F = models.mapping.fields;
  const filter = ownedOnly(models.mapping, { [F.vectorPending]: true });
  const pending = await models.mine.collection.countDocuments(filter);
  if (pending === 0) return { pending };
  const [oldest] = await models.mine.collection
    .find(ownedOnly(models.mapping, { [F.vectorPending]: true, [F.compressedAt]: { $exists: true } }), {
      projection: { [F.compressedAt]: 1 },
    })
    .sort({ [F.compressedAt]: 1 })
    .limit(1)
    .toArray();
  const at = oldest && valueAt(oldest, F.compressedAt);
  const oldestAt = at instanceof Date ? at : typeof at === 'string' ? new Date(at) : undefined;
  return { pending, ...(oldestAt && !Number.isNaN(oldestAt.getTime()) && { oldestAt }) };
}
