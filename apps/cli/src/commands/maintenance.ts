import {
  type DrainReport,
  flagForReindex,
  type ReceiptEntry,
  RollbackRefusedError,
  rollbackMemory,
} from '@memfade/app';
import type { TargetStage } from '@memfade/core';
import { withErasure, withOperations, withServices } from '../context.js';
import { table } from '../table.js';

/** Puts the failed compress jobs (optionally of one target stage) back in the queue. */
export async function retryFailed(options: { stage?: TargetStage; json: boolean }): Promise<void> {
  await withOperations(async ({ queues }) => {
    const failed = await queues.compress.getFailed();
    const chosen = failed.filter((job) => !options.stage || job.data.target === options.stage);
    for (const job of chosen) await job.retry('failed');
    const ids = chosen.map((job) => job.data.memoryId);
    console.log(
      options.json
        ? JSON.stringify({ retried: ids.length, memoryIds: ids })
        : `retried ${ids.length} failed jobs`,
    );
  });
}

/**
 * Takes a memory back to raw or V1 (rollbackMemory); this command opens no vector store: the
 * workers' vector sync rewrites the memory's record. Exit code 1 for a memory not found, as
 * `inspect` (README "Exit codes": 2 is bad usage or configuration, which a missing id is not).
 */
export async function rollback(memoryId: string, options: { to: 'raw' | 'v1' }): Promise<number> {
  return withOperations(async (operations) => {
    let result: Awaited<ReturnType<typeof rollbackMemory>>;
    try {
      result = await rollbackMemory(operations, memoryId, options.to);
    } catch (error) {
      // The memory's state refused it (already there, or edited meanwhile): not bad usage, exit 1.
      if (!(error instanceof RollbackRefusedError)) throw error;
      console.error(`memfade: ${error.message}`);
      return 1;
    }
    if (!result) {
      console.error(`memfade: memory ${memoryId} not found`);
      return 1;
    }
    console.log(`memory ${memoryId}: ${result.from} -> ${result.to}; it is due again at the next run`);
    return 0;
  });
}

/**
 * Re-embeds the searchable text of some users' memories (or all) into the configured vector store;
 * with --prune, also sweeps the whole store for erasure (records of deleted memories, text that no
 * longer matches, stages computed from content the product has changed since).
 */
export async function reindex(options: { user: string[]; all: boolean; prune: boolean }): Promise<void> {
  if (!options.all && options.user.length === 0 && !options.prune)
    throw new Error('choose the memories: --user <id> (repeatable) or --all, or --prune');
  await withServices(async (services) => {
    if (options.all || options.user.length) {
      const flagged = await flagForReindex(services, options.all ? 'all' : { userIds: options.user });
      console.log(reindexReport(flagged, await services.vectorSync.drainReport()));
    }
    if (options.prune) {
      const swept = await services.vectorSync.sweepAll();
      // What the sweep re-flagged or took back to raw gets its record now.
      await services.vectorSync.drain();
      console.log(
        `pruned ${swept.gone + swept.outdated + swept.restaged} of ${swept.checked} vector records: ` +
          `${swept.gone} of deleted memories, ${swept.outdated} out of date (re-embedded), ` +
          `${swept.restaged} of memories edited after their last stage (back to raw, compressed again when due)`,
      );
    }
    // Compaction rewrites LanceDB's files: it takes the fleet's vector write lock like every other write.
    await services.vectorSync.exclusive(() => services.vectors.optimize());
  });
}

/**
 * What a reindex did: the memories embedded and those given no record (bad input, docs/design.md invariant
 * 5), named, so the counts add up to what was flagged. The drain also takes what else was waiting
 * in the outbox, and a running worker's vector sync may take some of these first: then the counts
 * say so rather than add up.
 */
function reindexReport(flagged: number, drained: DrainReport): string {
  const bad = [...drained.notEmbedded];
  const shown = bad.slice(0, 10).join(', ') + (bad.length > 10 ? `, ... (${bad.length - 10} more)` : '');
  const lines = [
    `reindexed ${flagged} memories: ${drained.embedded.size} embedded, ${bad.length} not embedded` +
      (bad.length ? ` (bad input, no vector record: ${shown}; memfade inspect <id> says why)` : ''),
  ];
  const handled = drained.embedded.size + bad.length;
  if (handled !== flagged)
    lines.push(
      `the outbox drain handled ${handled} memories: ${handled > flagged ? 'others were waiting in the outbox too' : "a running worker's vector sync took the rest"}`,
    );
  return lines.join('\n');
}

/**
 * Removes memfade's derived data of one memory or one user: vector records and what the store keeps
 * of them, stage results and what goes with them, run errors, compress jobs, and in batch mode its
 * requests in flight and the provider's batch files. The product's content stays. Prints a receipt
 * of each place checked (docs/design.md invariant 8). Exit code 1 when a place still holds something or
 * could not be checked; a place `pending` (with its reason) or not in use does not fail the command;
 * 2 for a --user memfade knows nothing of, unless --allow-unknown.
 */
export async function forgetCommand(options: {
  user?: string;
  memory?: string;
  dryRun: boolean;
  json: boolean;
  allowUnknown?: boolean;
}): Promise<number> {
  if (Boolean(options.user) === Boolean(options.memory))
    throw new Error('choose what to forget: --user <id> or --memory <id>');
  const target = options.user ? { userId: options.user } : { memoryId: options.memory as string };
  return withErasure(async ({ erasure }) => {
    const report = await erasure.forget(target, {
      dryRun: options.dryRun,
      allowUnknown: options.allowUnknown,
    });
    // Like backfill --user (exit 2): a mistyped id gets no receipt that reads as an erasure.
    if (report.unknown)
      throw new Error(
        `--user: memfade knows no user '${options.user}' (no memory in the product, no vector record); nothing was done. Check the id, or add --allow-unknown to run every check and get the receipt`,
      );
    if (options.json) {
      console.log(JSON.stringify({ target, dryRun: options.dryRun, ...report }));
    } else {
      const subject = options.user ? `user ${options.user}` : `memory ${options.memory}`;
      const verb = options.dryRun ? 'would remove' : 'removed';
      console.log(
        `${subject}: ${verb} ${report.vectorRecords} vector records, the stage results of ` +
          `${report.memories} memories and ${report.runErrors} run errors`,
      );
      if (report.receipt.length) console.log(receiptText(report.receipt));
      for (const failure of report.failures) console.error(`not removed: ${failure}`);
    }
    return report.failures.length ? 1 : 0;
  });
}

/** The receipt as a table, then what the stores' own retention keeps, once per distinct note. */
function receiptText(receipt: ReceiptEntry[]): string {
  const rows = receipt.map((e) => [e.place, e.status, e.detail]);
  const lines = [table(['place', 'status', 'what was done'], rows)];
  const kept = new Map<string, string[]>();
  for (const e of receipt) if (e.kept) kept.set(e.kept, [...(kept.get(e.kept) ?? []), e.place]);
  if (kept.size) lines.push("kept by the stores' own retention, beyond memfade's reach:");
  for (const [note, places] of kept) lines.push(`  ${places.join(', ')}: ${note}`);
  return lines.join('\n');
}
