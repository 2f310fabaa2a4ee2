import type { Operations, Selection } from '@memfade/app';
import { enqueueRun, knownUsers, selectDue } from '@memfade/app';
import type { TargetStage } from '@memfade/core';
import { withOperations } from '../context.js';
import { waitWithProgress, warnWithoutWorkers } from '../progress.js';

export interface BackfillOptions {
  user: string[];
  all: boolean;
  stage?: TargetStage;
  olderThan?: number;
  limit?: number;
  dryRun: boolean;
  wait: boolean;
  json: boolean;
  /** --timeout of --wait, in ms. */
  timeout?: number;
}

/**
 * Enqueues the due memories of some users (or all) through the nightly run's own path: the same
 * selection and the same deterministic job ids, so a backfill next to the nightly run never
 * doubles work. Returns the exit code.
 */
export async function backfill(options: BackfillOptions): Promise<number> {
  if (!options.all && options.user.length === 0)
    throw new Error('choose the memories: --user <id> (repeatable) or --all');
  if (options.all && options.user.length) throw new Error('--all and --user exclude each other');
  const selection: Selection = {
    userIds: options.all ? undefined : options.user,
    stages: options.stage ? [options.stage] : undefined,
    olderThanDays: options.olderThan,
    limit: options.limit,
  };
  return withOperations(async (operations) => {
    await requireKnownUsers(operations, selection.userIds);
    if (options.dryRun) return dryRun(operations, selection, options.json);
    const runId = await enqueueRun(operations, { trigger: 'backfill', selection });
    if (options.wait)
      return waitWithProgress(operations, runId, { json: options.json, timeoutMs: options.timeout });
    console.log(options.json ? JSON.stringify({ runId }) : `enqueued backfill run ${runId}`);
    await warnWithoutWorkers(operations);
    return 0;
  });
}

/** A --user with no memory at all is a typo or a wrong prefix: say so rather than enqueue nothing quietly. */
async function requireKnownUsers(operations: Operations, userIds: string[] | undefined): Promise<void> {
  if (!userIds) return;
  const known = await knownUsers(operations, userIds);
  const unknown = userIds.filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`--user: no memories of ${unknown.map((id) => `'${id}'`).join(', ')}`);
}

async function dryRun(services: Operations, selection: Selection, json: boolean): Promise<number> {
  const counts = { v1: 0, v2: 0 };
  const first: string[] = [];
  for await (const candidate of selectDue(
    services.models,
    services.config.policy,
    services.now(),
    selection,
    // As the backfill will: in side-collection mode this writes side documents (memfade's own).
    { enrolAll: true },
  )) {
    counts[candidate.target]++;
    if (first.length < 10) first.push(`${candidate.memoryId} -> ${candidate.target}`);
  }
  if (json) console.log(JSON.stringify({ dryRun: true, counts, first }));
  else {
    console.log(
      `dry run: would enqueue ${counts.v1 + counts.v2} memories (to V1: ${counts.v1}, to V2: ${counts.v2}); nothing was enqueued`,
    );
    for (const line of first) console.log(`  ${line}`);
  }
  return 0;
}
