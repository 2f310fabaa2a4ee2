import type { TargetStage } from '@memfade/core';
import { idsFilter } from './canonical.js';
import { stageResultPath } from './mapping.js';
import type { Models } from './models.js';
import { productDataFilters } from './ownership.js';
import type { MemoryCounts } from './run-record.js';

/**
 * What a run did, as its memories and error records tell it (not as its counters do): the run
 * tracker settles a finished run's counts from these.
 */
export async function countRunMemories(models: Models, runId: string): Promise<MemoryCounts> {
  const { mapping } = models;
  const F = mapping.fields;
  const count = (filter: Record<string, unknown>) => models.mine.countDocuments(filter).exec();
  const applied = (stage: TargetStage) => ({ [F.history]: { $elemMatch: { runId, stage } } });
  const skipped = (stage: TargetStage) => ({
    ...applied(stage),
    [`${stageResultPath(mapping, stage)}.skipped`]: { $exists: true },
  });
  const byThisRun = { [`${F.history}.runId`]: runId };
  const listed = (await models.runErrors.distinct('memoryId', { runId }).exec()) as string[];
  // A memory compressed since its failure (a retried job) no longer carries its error; one with
  // the product's data at memfade's fields never does (memfade writes nothing there). An id of 24
  // hex digits matches an ObjectId `_id` too: the errors list the ids as strings.
  const stillFailing = {
    ...idsFilter(mapping.mine.id, listed),
    $or: [
      { [F.lastError]: { $exists: true } },
      { [F.fallbackLastError]: { $exists: true } },
      ...productDataFilters(mapping),
    ],
  };
  const [v1, v2, skippedV1, skippedV2, advanced, failed, failedAndAdvanced] = await Promise.all([
    count(applied('v1')),
    count(applied('v2')),
    count(skipped('v1')),
    count(skipped('v2')),
    count(byThisRun),
    listed.length ? count(stillFailing) : 0,
    // A raw memory can get V1 and then fail at V2: one job, both advanced and failed.
    listed.length ? count({ ...byThisRun, ...stillFailing }) : 0,
  ]);
  return { v1, v2, skipped: skippedV1 + skippedV2, advanced, failed, failedAndAdvanced };
}
