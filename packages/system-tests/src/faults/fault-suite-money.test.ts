import { enqueueRun } from '@memfade/app';
import { until, WORKER_WAIT_MS } from '@memfade/testing';
import { describe, expect, it } from 'vitest';
import { BATCH, DISTINCT, roundZeroSubmitted, submittedOnce } from './batch-rows.js';
import { faultTable, ROW_TIMEOUT_MS } from './fault-table.js';
import {
  billedLineTokens,
  HUGE_LINE_PADDING,
  oneLineOverTheHeap,
  oversizedResultsNight,
  SMALL_HEAP_MB,
} from './oversized-results.js';

/**
 * The promise of docs/design.md §5 and invariant 9, tested the hard way, in batch mode: the rows
 * that also count money (no memory requested twice, every paid line counted at its price) under
 * repeated kills, racing runs, a forget mid-night and results files larger than the worker's heap.
 * The other batch rows are fault-suite.test.ts, the compress-job rows fault-suite-sync.test.ts and
 * fault-suite-sync-money.test.ts; the four files run at once. Each test ends with a full audit of every memory.
 */

// Slow scenarios: whole nights through worker processes; 12-55 s each (loaded machine), so 2 minutes.
describe('fault suite (batch mode, money counted): nothing lost, nothing applied twice, every line counted', {
  timeout: ROW_TIMEOUT_MS,
}, () => {
  const { table, record, rig } = faultTable('fault-suite-money');

  it(
    'a poll killed three times in a row (between submit and poll, then twice while applying): the run still applies every result',
    async () => {
      const r = await rig({}, DISTINCT);
      r.emulator.batches.processingMs = Number.POSITIVE_INFINITY;
      const first = r.startWorker(BATCH);
      const runId = await r.runNight();
      await roundZeroSubmitted(r, runId);
      // Kill 1: every request is in a batch, nothing polled yet.
      first.child.kill('SIGKILL');
      await first.exited;
      // Kills 2 and 3: the first results file pauses after 12 lines, then after 20 when read again.
      let held = r.emulator.batches.holdNextResults(12);
      r.emulator.batches.processingMs = 0;
      r.emulator.batches.settle();
      for (const pausedAt of [12, 20]) {
        const doomed = r.startWorker(BATCH);
        await until(
          async () => (await r.batchRequests('applied')) >= pausedAt,
          WORKER_WAIT_MS,
          r.tail.bind(r),
        );
        doomed.child.kill('SIGKILL');
        await doomed.exited;
        held.release();
        if (pausedAt === 12) held = r.emulator.batches.holdNextResults(20);
      }
      r.startWorker(BATCH);
      const runs = await r.settle([runId]);
      submittedOnce(r);
      const poll = (await r.services.queues.batch.getCompleted(0, -1)).find(
        (job) => job.name === 'batch-poll' && job.stalledCounter >= 2,
      );
      // Proof the kills hit the same poll job twice while it applied (BullMQ's default limit is 1).
      expect(poll).toBeDefined();
      expect(await r.batchRequests('submitted')).toBe(0);
      record(
        'batch: kill -9 three times (submit/poll, applying twice)',
        await r.audit(runs),
        3,
        r.money(runs),
      );
    },
    ROW_TIMEOUT_MS,
  );

  it(
    'two run-now fired together on two workers and a sync backfill of two users: each memory requested once, every line counted',
    async () => {
      const r = await rig({}, DISTINCT);
      r.startWorker(BATCH);
      r.startWorker(BATCH);
      const users = (await r.services.models.memories.distinct('userId')).slice(0, 2) as string[];
      const { asOf } = r;
      const runIds = await Promise.all([
        enqueueRun(r.services, { runId: 'manual-a', trigger: 'manual', asOf }),
        enqueueRun(r.services, { runId: 'manual-b', trigger: 'manual', asOf }),
        enqueueRun(r.services, {
          runId: 'backfill-x',
          trigger: 'backfill',
          asOf,
          selection: { userIds: users },
        }),
      ]);
      const runs = await r.settle(runIds);
      // Both nights found the memories due; each memory went to one of the three runs.
      expect(runs.reduce((n, run) => n + (run.counts.inOtherRuns ?? 0), 0)).toBeGreaterThan(100);
      submittedOnce(r);
      record('2 run-now (batch) + 1 backfill (sync) at once', await r.audit(runs), 3, r.money(runs));
    },
    ROW_TIMEOUT_MS,
  );
  it(
    'forget of a user in the middle of a batch night: none of their text left anywhere memfade reached, every line counted',
    async () => {
      const r = await rig({}, DISTINCT);
      r.emulator.batches.processingMs = Number.POSITIVE_INFINITY;
      // BATCH_DELETE_FILES off: only forget can make the provider delete the batches holding the user's text.
      r.startWorker(BATCH);
      const runId = await r.runNight();
      await roundZeroSubmitted(r, runId);
      // Half of round 0 ends and is applied (and embedded) before the forget; the rest is in flight.
      const round0 = r.emulator.batches.list();
      const early = round0.slice(0, Math.ceil(round0.length / 2));
      for (const batch of early) r.emulator.batches.settle(batch.id);
      const applied = early.reduce((n, b) => n + b.customIds.length, 0);
      await until(
        async () => (await r.batchRequests('applied')) >= applied - 5,
        WORKER_WAIT_MS,
        r.tail.bind(r),
      );
      await until(
        async () => (await r.services.models.memories.countDocuments({ 'vectorSync.pending': true })) === 0,
        30_000,
        r.tail.bind(r),
      );
      const user = 'demo-en-2';
      const ids = (await r.services.models.memories.distinct('memoryId', { userId: user })) as string[];
      const markers = ids.map((id) => `(${id})`);
      // The search can fail: before the forget the user's text is at the provider and in the store.
      const before = await r.leaks(markers);
      expect(before.some((hit) => hit.startsWith('provider batch files'))).toBe(true);
      expect(before.some((hit) => hit.startsWith('vector store'))).toBe(true);
      const { receipt } = await r.forgetUser(user);
      expect(receipt.filter((e) => e.status === 'left' || e.status === 'failed')).toEqual([]);
      expect(receipt.length).toBeGreaterThan(5);
      r.emulator.batches.processingMs = 0;
      r.emulator.batches.settle();
      const runs = await r.settle([runId]);
      // After the night: the batches that held the user's requests are applied and deleted at the
      // provider; the others stay (BATCH_DELETE_FILES is off here).
      expect(await r.leaks(markers)).toEqual([]);
      expect(r.emulator.batches.storedText().length).toBeGreaterThan(0);
      expect(await r.services.models.batchRequests.countDocuments({ state: 'forgotten' })).toBeGreaterThan(0);
      record(
        `batch: forget of 1 user mid-night (${ids.length} memories)`,
        await r.audit(runs),
        1,
        r.money(runs),
      );
    },
    ROW_TIMEOUT_MS,
  );

  it.each(['anthropic', 'openai'] as const)(
    'a batch results file larger than the worker heap (%s): read and applied a chunk at a time, every line counted',
    async (provider) => {
      const r = await rig({}, DISTINCT);
      const { runs, worker, largest } = await oversizedResultsNight(r, provider, BATCH);
      const heap = SMALL_HEAP_MB * 2 ** 20;
      // The file really was bigger than the heap, and the one worker read it without dying.
      expect(largest).toBeGreaterThan(3 * heap);
      expect(worker.child.exitCode).toBeNull();
      expect(await r.batchRequests('submitted')).toBe(0);
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      record(
        `batch: results file larger than the worker's heap (${provider}: ${mb(largest)} MB file, heap ${SMALL_HEAP_MB} MB)`,
        await r.audit(runs),
        1,
        r.money(runs),
      );
    },
    ROW_TIMEOUT_MS,
  );

  it(
    'one batch result line larger than the worker heap: not read, its request asked again next round, the rest applied',
    async () => {
      const r = await rig({}, DISTINCT);
      const { runs, worker, largest, hugeLine } = await oneLineOverTheHeap(r, BATCH);
      expect(largest).toBeGreaterThan(3 * SMALL_HEAP_MB * 2 ** 20);
      expect(worker.child.exitCode).toBeNull();
      expect(runs[0]!.interrupted).toBeUndefined();
      const refused = await r.services.models.batchRequests.collection.findOne({ customId: hugeLine });
      expect(refused).toMatchObject({
        state: 'retried',
        error: expect.stringMatching(
          /^anthropic: result line of \d+ bytes, over the 4194304 bytes memfade reads$/,
        ),
      });
      // The line memfade did not read was paid for, and is the only one it could not count; its
      // memory was asked again (the one memory requested twice) and that reply applied. The table
      // shows the row's money as it is (record() would require billed = counted).
      const money = r.money(runs);
      expect(money.billed - money.counted).toBe(billedLineTokens(r, hugeLine));
      expect(money.requestedTwice).toBe(1);
      const line = `${HUGE_LINE_PADDING / 2 ** 20} MB line, heap ${SMALL_HEAP_MB} MB`;
      record(`batch: one result line larger than the worker's heap (${line})`, await r.audit(runs), 1);
      Object.assign(table.at(-1)!, money);
    },
    ROW_TIMEOUT_MS,
  );
});
