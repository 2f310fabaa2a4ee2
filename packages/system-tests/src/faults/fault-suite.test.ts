import { enqueueRun } from '@memfade/app';
import type { Memory, Turn } from '@memfade/core';
import { batchSubmitJobId, enqueueBatchPoll } from '@memfade/queue';
import { until } from '@memfade/testing';
import { describe, expect, it } from 'vitest';
import type { FaultRig } from './fault-rig.js';
import { faultTable } from './fault-table.js';
import {
  billedLineTokens,
  HUGE_LINE_PADDING,
  oneLineOverTheHeap,
  oversizedResultsNight,
  SMALL_HEAP_MB,
} from './oversized-results.js';

/**
 * The promise of docs/design.md §5, tested the hard way, in batch mode (the rows with compress
 * jobs are fault-suite-sync.test.ts, run at the same time as this file): a nightly run over a few
 * hundred memories through worker processes started from the built binary, on real Redis and a
 * real MongoDB-wire server, with one fault injected per test. Each test ends with a full audit of
 * every memory. The slowest file of the test suite: every row runs a real night at model latency.
 */

/** The rows that count money: every memory's text its own, so requests are told apart (money()). */
const DISTINCT = { distinct: true };

/**
 * Batch mode (README "Batch mode") with tiny batches and a short poll: round 0 of a night is a
 * handful of batches, and a round's results are applied a few hundred milliseconds after it ends.
 */
const BATCH = {
  MODEL_MODE: 'batch',
  BATCH_MIN_CALLS: '10',
  BATCH_MAX_REQUESTS: '25',
  BATCH_POLL_MS: '300',
  // Results applied 4 at a time: a kill lands between chunks and inside one.
  BATCH_CHUNK: '4',
  // The rows look at the provider's batches after the night (batch-mode.test.ts tests the default).
  BATCH_DELETE_FILES: 'false',
};

/** The first model request of each memory's input (sync repair calls never): the one a rule faults. */
function firstOfEach(): (body: { messages?: unknown[] }) => boolean {
  const seen = new Set<string>();
  return (body) => {
    if ((body.messages?.length ?? 0) > 1) return false;
    const key = JSON.stringify(body.messages);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/**
 * Waits until round 0's submit job has ended: every due memory's first request is in a batch the
 * emulator holds (or went the sync way: too short for a model, or several chunks).
 */
async function roundZeroSubmitted(r: FaultRig, runId: string): Promise<void> {
  const submitted = async () =>
    (await r.services.queues.batch.getJob(batchSubmitJobId(runId, 0)))?.isCompleted() ?? false;
  await until(submitted, 30_000, r.tail.bind(r));
  expect(r.emulator.batches.list().length).toBeGreaterThan(3);
}

/** No request was submitted twice: every custom id is in one batch the emulator holds. */
function submittedOnce(r: FaultRig): void {
  const ids = r.emulator.batches.list().flatMap((b) => b.customIds);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('fault suite (batch mode): nothing lost, nothing applied twice', () => {
  const { table, record, rig } = faultTable('fault-suite');

  it('batch results with errored requests and schema-breaking replies: retried next round, repaired', async () => {
    const r = await rig();
    // Deterministic by request number, each memory's first request only: a retry in the next round
    // or a repair call (sync, it carries the bad answer) is never faulted.
    const first = firstOfEach();
    r.emulator.setRule(({ api, index, body }) => {
      if (api === 'embeddings' || !first(body)) return undefined;
      if (index % 11 === 2) return { kind: 'status', status: 500 };
      if (index % 13 === 4) return { kind: 'status', status: 529 };
      if (index % 7 === 5) return { kind: 'schema' };
      if (index % 17 === 6) return { kind: 'malformed' };
      return undefined;
    });
    r.startWorker(BATCH);
    const runId = await r.runNight();
    const runs = await r.settle([runId]);
    const faults = r.emulator.requests.filter((req) => req.batchId && req.fault).length;
    expect(faults).toBeGreaterThan(30);
    // Every model call but the repair calls went in a batch.
    const sync = r.emulator.requests.filter((req) => req.api !== 'embeddings' && !req.batchId);
    expect(sync.every((req) => req.body.messages.length > 1)).toBe(true);
    expect(runs[0]!.batches).toMatchObject({ mode: 'batch' });
    record('batch: errored (500, 529) and schema-breaking results', await r.audit(runs), faults);
  });

  it('a batch expires with part of its requests done: the done ones are applied, the rest go next round', async () => {
    const r = await rig();
    r.emulator.batches.processingMs = Number.POSITIVE_INFINITY;
    r.startWorker(BATCH);
    const runId = await r.runNight();
    await roundZeroSubmitted(r, runId);
    const [expiring, ...others] = r.emulator.batches.list();
    r.emulator.batches.process(expiring!.id, 10);
    r.emulator.batches.expire(expiring!.id);
    // Later rounds (the expired requests, V2 after V1) end at once.
    r.emulator.batches.processingMs = 0;
    for (const batch of others) r.emulator.batches.settle(batch.id);
    const runs = await r.settle([runId]);
    const expired = expiring!.customIds.length - 10;
    expect(expired).toBeGreaterThan(0);
    expect(runs[0]!.batches?.requests).toMatchObject({ expired });
    // The expired requests went again, in a later batch.
    const round0 = new Set([expiring!, ...others].map((b) => b.id));
    const again = r.emulator.batches.list().filter((b) => !round0.has(b.id));
    expect(again.reduce((n, b) => n + b.customIds.length, 0)).toBeGreaterThanOrEqual(expired);
    record(`batch: expired with 10 of ${expiring!.customIds.length} done`, await r.audit(runs), 1);
  });

  it('a worker killed halfway through applying a results file: another resumes it, nothing submitted or applied twice', async () => {
    const r = await rig();
    // The first results file stops after 12 lines until released: the worker applies those and waits.
    const held = r.emulator.batches.holdNextResults(12);
    const doomed = r.startWorker(BATCH);
    const runId = await r.runNight();
    await until(async () => (await r.batchRequests('applied')) >= 12, 30_000, r.tail.bind(r));
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const appliedAtKill = await r.batchRequests('applied');
    held.release();
    // The dead worker's poll job comes back to this one once its lock expires.
    r.startWorker(BATCH);
    const runs = await r.settle([runId]);
    expect(appliedAtKill).toBe(12);
    submittedOnce(r);
    record('batch: kill -9 after 12 of 25 results applied', await r.audit(runs), 1);
  });

  it('two replicas polling and applying the same batches at once: each result applied once', async () => {
    const r = await rig();
    r.emulator.batches.processingMs = Number.POSITIVE_INFINITY;
    r.startWorker(BATCH);
    r.startWorker(BATCH);
    const runId = await r.runNight();
    await roundZeroSubmitted(r, runId);
    // The first results download pauses halfway, so the pollers overlap on it and on the others.
    const held = r.emulator.batches.holdNextResults(10);
    r.emulator.batches.processingMs = 0;
    r.emulator.batches.settle();
    // Besides the round's own chain of polls, four more of round 0 at once, as if replicas' polls
    // overlapped: each worker runs two at a time, so both read the same results files together.
    const extra = [1_001, 1_002, 1_003, 1_004];
    for (const poll of extra) await enqueueBatchPoll(r.services.queues, { runId, round: 0, poll }, 0);
    await until(async () => (await r.batchRequests('applied')) >= 60, 30_000, r.tail.bind(r));
    held.release();
    const runs = await r.settle([runId]);
    submittedOnce(r);
    const polls = await r.services.queues.batch.getCompleted(0, -1);
    const extraDone = polls.filter((job) => 'poll' in job.data && extra.includes(job.data.poll));
    expect(extraDone).toHaveLength(extra.length);
    record(
      `batch: 2 workers, ${extra.length} extra polls of the same round`,
      await r.audit(runs),
      extra.length,
    );
  });

  it('the product edits and deletes memories while their requests are in a batch', async () => {
    const r = await rig();
    r.emulator.batches.processingMs = Number.POSITIVE_INFINITY;
    r.startWorker(BATCH);
    const runId = await r.runNight();
    await roundZeroSubmitted(r, runId);
    const { models, vectors } = r.services;
    const inBatch = (await models.batchRequests.collection
      .find({ runId, round: 0, state: 'submitted' })
      .sort({ memoryId: 1 })
      .toArray()) as unknown as { memoryId: string }[];
    const edited: string[] = [];
    for (const [i, { memoryId }] of inBatch.entries()) {
      if (i % 6 === 3) await r.productDelete(memoryId);
      if (i % 6 !== 0) continue;
      const doc = (await models.memories.collection.findOne({ memoryId })) as unknown as Memory;
      const [first, ...rest] = doc.content.raw as Turn[];
      const raw = [{ ...first!, text: `${first!.text} Edited by the user while in a batch.` }, ...rest];
      if (await r.productEdit(doc, raw)) edited.push(memoryId);
    }
    const deleted = r.deletedIds();
    expect(edited.length).toBeGreaterThan(20);
    expect(deleted.length).toBeGreaterThan(20);
    r.emulator.batches.processingMs = 0;
    r.emulator.batches.settle();
    const runs = await r.settle([runId]);
    await until(async () => (await vectors.get(deleted)).length === 0, 30_000, r.tail.bind(r));
    // Each edited memory's reply was thrown away and its new text went in a later round.
    const again = await models.batchRequests.countDocuments({
      runId,
      memoryId: { $in: edited },
      round: 0,
      state: 'retried',
    });
    expect(again).toBe(edited.length);
    const fromNewText = r.emulator.requests.filter(
      (q) => q.batchId && JSON.stringify(q.body).includes('Edited by the user while in a batch.'),
    );
    expect(fromNewText.length).toBeGreaterThanOrEqual(edited.length);
    record(
      `batch: ${edited.length} edited, ${deleted.length} deleted while in a batch`,
      await r.audit(runs),
      edited.length + deleted.length,
    );
  });

  it('a worker killed between submitting a batch and recording its id: another finds the batch, submits nothing twice', async () => {
    const r = await rig();
    // The provider accepts the first batch but its reply never reaches the worker: killed meanwhile.
    const held = r.emulator.batches.holdNextCreate();
    const doomed = r.startWorker(BATCH);
    const runId = await r.runNight();
    const orphan = await held.accepted;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    held.release();
    // Recorded as being submitted, with no provider id: the window this scenario is about.
    expect(await r.services.batches.batches(runId, 0)).toMatchObject([{ state: 'submitting' }]);
    expect((await r.services.batches.batches(runId, 0))[0]!.batchId).toBeUndefined();
    // The dead worker's submit job comes back to this one, which looks for the batch before
    // submitting anything.
    r.startWorker(BATCH);
    const runs = await r.settle([runId]);
    submittedOnce(r);
    const [first] = await r.services.batches.batches(runId, 0);
    expect(first).toMatchObject({ batchId: orphan, state: 'applied' });
    record('batch: kill -9 between submit and recording the batch id', await r.audit(runs), 1);
  });
  it('a poll killed three times in a row (between submit and poll, then twice while applying): the run still applies every result', async () => {
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
      await until(async () => (await r.batchRequests('applied')) >= pausedAt, 60_000, r.tail.bind(r));
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
    record('batch: kill -9 three times (submit/poll, applying twice)', await r.audit(runs), 3, r.money(runs));
  }, 120_000);

  it('two run-now fired together on two workers and a sync backfill of two users: each memory requested once, every line counted', async () => {
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
  }, 120_000);
  it('forget of a user in the middle of a batch night: none of their text left anywhere memfade reached, every line counted', async () => {
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
    await until(async () => (await r.batchRequests('applied')) >= applied - 5, 60_000, r.tail.bind(r));
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
  }, 120_000);

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
    120_000,
  );

  it('one batch result line larger than the worker heap: not read, its request asked again next round, the rest applied', async () => {
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
  }, 120_000);
});
