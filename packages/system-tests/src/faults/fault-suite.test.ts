import type { Memory, Turn } from '@memfade/core';
import { enqueueBatchPoll } from '@memfade/queue';
import { until, WORKER_WAIT_MS } from '@memfade/testing';
import { describe, expect, it } from 'vitest';
import { BATCH, roundZeroSubmitted, submittedOnce } from './batch-rows.js';
import { billedAndCounted } from './fault-checks.js';
import type { FaultRig } from './fault-rig.js';
import { faultTable, ROW_TIMEOUT_MS } from './fault-table.js';

/** Every row's tokens billed and counted (docs/design.md invariant 9); a retried request is asked again, by design. */
const paid = (r: FaultRig, runs: Parameters<FaultRig['money']>[0]) => billedAndCounted(r.emulator, runs);

/**
 * The promise of docs/design.md §5, tested the hard way, in batch mode: the provider's batches
 * misbehave and the workers around them die (the rows that count every paid line are
 * fault-suite-money.test.ts, those with compress jobs fault-suite-sync.test.ts and fault-suite-sync-money.test.ts;
 * the four files run at once). A nightly run over a few hundred memories through worker processes started from the
 * built binary, on real Redis and a real MongoDB-wire server, with one fault injected per test. Each
 * test ends with a full audit of every memory.
 */

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

// Slow scenarios: whole nights through worker processes; 12-55 s each (loaded machine), so 2 minutes.
describe('fault suite (batch mode): nothing lost, nothing applied twice', { timeout: ROW_TIMEOUT_MS }, () => {
  const { record, rig } = faultTable('fault-suite');

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
    record(
      'batch: errored (500, 529) and schema-breaking results',
      await r.audit(runs),
      faults,
      paid(r, runs),
    );
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
    record(
      `batch: expired with 10 of ${expiring!.customIds.length} done`,
      await r.audit(runs),
      1,
      paid(r, runs),
    );
  });

  it('a worker killed halfway through applying a results file: another resumes it, nothing submitted or applied twice', async () => {
    const r = await rig();
    // The first results file stops after 12 lines until released: the worker applies those and waits.
    const held = r.emulator.batches.holdNextResults(12);
    const doomed = r.startWorker(BATCH);
    const runId = await r.runNight();
    await until(async () => (await r.batchRequests('applied')) >= 12, WORKER_WAIT_MS, r.tail.bind(r));
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const appliedAtKill = await r.batchRequests('applied');
    held.release();
    // The dead worker's poll job comes back to this one once its lock expires.
    r.startWorker(BATCH);
    const runs = await r.settle([runId]);
    expect(appliedAtKill).toBe(12);
    submittedOnce(r);
    record('batch: kill -9 after 12 of 25 results applied', await r.audit(runs), 1, paid(r, runs));
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
    await until(async () => (await r.batchRequests('applied')) >= 60, WORKER_WAIT_MS, r.tail.bind(r));
    held.release();
    const runs = await r.settle([runId]);
    submittedOnce(r);
    // The extra polls end too, without error: each finds its results applied. One may still be
    // waiting for its next look when the run finishes (a night with V2 from the drafts needs no
    // second round), so they are waited for.
    const extraDone = async () => {
      const polls = await r.services.queues.batch.getCompleted(0, -1);
      return polls.filter((job) => 'poll' in job.data && extra.includes(job.data.poll)).length;
    };
    await until(async () => (await extraDone()) === extra.length, WORKER_WAIT_MS, r.tail.bind(r));
    expect(await r.services.queues.batch.getFailedCount()).toBe(0);
    record(
      `batch: 2 workers, ${extra.length} extra polls of the same round`,
      await r.audit(runs),
      extra.length,
      paid(r, runs),
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
    await until(async () => (await vectors.get(deleted)).length === 0, WORKER_WAIT_MS, r.tail.bind(r));
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
      paid(r, runs),
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
    record('batch: kill -9 between submit and recording the batch id', await r.audit(runs), 1, paid(r, runs));
  });
});
