import { mkdir, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { enqueueRun, nightlyRunId } from '@memfade/app';
import { type Memory, stageDueAt, type Turn } from '@memfade/core';
import { batchSubmitJobId, enqueueBatchPoll, enqueueNightlyRun } from '@memfade/queue';
import { startRedisServer } from '@memfade/runtime';
import { type Fault, startTcpProxy, tempDir, until, workerMongoUri } from '@memfade/testing';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { type Audit, FaultRig, type Money, type ScenarioReport } from './fault-rig.js';
import {
  billedLineTokens,
  HUGE_LINE_PADDING,
  oneLineOverTheHeap,
  oversizedResultsNight,
  SMALL_HEAP_MB,
} from './oversized-results.js';

/**
 * The promise of docs/design.md §5, tested the hard way: a nightly run over a few hundred memories
 * through worker processes started from the built binary, on real Redis and a real MongoDB-wire
 * server, with one fault injected per test. Each test ends with a full audit of every memory.
 *
 * The slowest part of the whole test suite (about two minutes): every scenario runs a real night
 * at model latency, and the retries it provokes wait for BullMQ's backoff.
 */

/** 24 users × 11 days of demo memories: 264 memories, 192 of them due (V1, or V1 then V2). */
const USERS = 24;
/** Model latency for every call, so that faults land while jobs are in flight. */
const LATENCY: Fault = { kind: 'slow', delayMs: 150 };
/** How far into the run (completed jobs) each fault is injected. */
const MID_RUN = 50;

const table: ScenarioReport[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

function record(scenario: string, audit: Audit, faults: number, money?: Money): void {
  const { memories, due, lost, appliedTwice } = audit;
  table.push({ scenario, memories, due, faults, lost, appliedTwice, ...money });
  expect(audit.problems).toEqual([]);
  expect(audit.lost, audit.lostDetails.join('\n')).toBe(0);
  expect(audit.appliedTwice).toBe(0);
  expect(audit.due).toBeGreaterThan(100);
  // docs/design.md invariant 9: no memory requested twice, every paid line counted at its price.
  if (money) {
    expect(money.requestedTwice, 'memories requested twice').toBe(0);
    expect(money.counted, 'tokens counted by the runs = tokens billed').toBe(money.billed);
  }
}

async function rig(
  options: Parameters<typeof FaultRig.start>[0] = {},
  seed: Parameters<FaultRig['seed']>[1] = {},
): Promise<FaultRig> {
  const started = await FaultRig.start(options);
  cleanups.push(() => started.close());
  await started.seed(USERS, seed);
  return started;
}

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

const midRun = (r: FaultRig) =>
  until(async () => (await r.completedJobs()) >= MID_RUN, 60_000, r.tail.bind(r));

describe('fault suite: nothing lost, nothing applied twice', () => {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    const shown = (n: number | undefined) => (n === undefined ? '-' : String(n));
    const lines = [
      '| scenario | memories | due | faults injected | lost | applied twice | requested twice | tokens billed | tokens counted |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...table.map(
        (r) =>
          `| ${r.scenario} | ${r.memories} | ${r.due} | ${r.faults} | ${r.lost} | ${r.appliedTwice} | ` +
          `${shown(r.requestedTwice)} | ${shown(r.billed)} | ${shown(r.counted)} |`,
      ),
    ];
    console.log(`fault suite\n${lines.join('\n')}`);
    const dir = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}fault-suite.md`, `${lines.join('\n')}\n`);
  });

  it('kill -9 of a worker mid-run: the other worker takes over its stalled jobs', async () => {
    const r = await rig();
    r.emulator.setRule(() => LATENCY);
    const [doomed] = [r.startWorker(), r.startWorker()];
    const runId = await r.runNight();
    await midRun(r);
    doomed!.child.kill('SIGKILL');
    await doomed!.exited;
    const runs = await r.settle([runId]);
    // Proof that the kill hit jobs in flight: some completed jobs were taken back from the dead worker.
    const jobs = await r.services.queues.compress.getCompleted(0, -1);
    expect(jobs.filter((job) => job.stalledCounter > 0).length).toBeGreaterThan(0);
    record('kill -9 of one of two workers', await r.audit(runs), 1);
  });

  it('Redis stopped and restarted mid-run: workers reconnect and the run completes', async () => {
    const data = await tempDir('memfade-redis-');
    cleanups.push(data.remove);
    let redis = await startRedisServer({ dataDir: data.dir });
    cleanups.push(() => redis.stop());
    const r = await rig({ redisUrl: redis.url });
    r.emulator.setRule(() => LATENCY);
    r.startWorker();
    const runId = await r.runNight();
    await midRun(r);
    await redis.stop();
    await sleep(2_000);
    redis = await startRedisServer({ port: redis.port, dataDir: data.dir });
    const runs = await r.settle([runId]);
    record('Redis stopped 2 s and restarted', await r.audit(runs), 1);
  });

  it('MongoDB unreachable mid-run: jobs retry with backoff and complete', async () => {
    const proxy = await startTcpProxy({ port: Number(new URL(workerMongoUri(inject('mongoUris'))).port) });
    cleanups.push(() => proxy.close());
    const r = await rig({ workerMongoUri: `mongodb://127.0.0.1:${proxy.port}` });
    r.emulator.setRule(() => LATENCY);
    const w = r.startWorker({ LOG_LEVEL: 'info' });
    const runId = await r.runNight();
    await midRun(r);
    await proxy.cut();
    // At least 3 s, and until the worker has seen it: an operation that finds the pool reset waits
    // for a server (up to its selection timeout), so a cut no operation outlives goes unnoticed.
    await Promise.all([
      sleep(3_000),
      until(async () => w.logged('MongoDB unreachable: waiting for it, with backoff') > 0, 30_000, w.output),
    ]);
    await proxy.restore();
    const runs = await r.settle([runId]);
    // The worker says so once, with backoff, and when MongoDB is back; not a stack per job or sweep.
    const away = w.logged('MongoDB unreachable: waiting for it, with backoff');
    expect(w.logged('MongoDB is back')).toBe(away);
    expect(w.logged('could not check for finished runs')).toBe(0);
    expect(w.output()).not.toMatch(/"stack"/);
    record('MongoDB cut off 3 s (connections reset)', await r.audit(runs), 1);
  });

  it('a crash between the stage writes and the vector upserts: the outbox sweeper repairs the store', async () => {
    const r = await rig({ remoteEmbedder: true });
    // Embeddings hang, so every stage is written while no vector is.
    r.emulator.setRule(({ api }) => (api === 'embeddings' ? { kind: 'slow', delayMs: 60_000 } : undefined));
    const crashed = r.startWorker();
    const runId = await r.runNight();
    await until(async () => Boolean((await r.services.runs.get(runId))?.finishedAt), 60_000, r.tail.bind(r));
    const pending = await r.services.models.memories.countDocuments({ 'vectorSync.pending': true });
    expect(await r.services.vectors.count()).toBe(0);
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    r.emulator.setRule(undefined);
    r.startWorker();
    const runs = await r.settle([runId]);
    expect(pending).toBeGreaterThan(100);
    record(`crash with ${pending} vector upserts pending`, await r.audit(runs), 1);
  });

  it('two schedulers firing the same night again and again, and a backfill racing them', async () => {
    const r = await rig();
    r.emulator.setRule(() => LATENCY);
    // The schedule has minute precision: each worker's scheduler fires today's night once at start
    // (catch-up, its fire time passed), and the test fires it again every 200 ms as a scheduler
    // would (the same run id, the same enqueue).
    const scheduler = {
      SCHEDULER_ENABLED: 'true',
      SCHEDULE_CRON: '0 0 * * *',
      SCHEDULE_TZ: 'UTC',
      CATCH_UP: 'always',
      // Each fire logs 'nightly run enqueued' at info: counted below.
      LOG_LEVEL: 'info',
    };
    r.startWorker(scheduler);
    r.startWorker(scheduler);
    const night = nightlyRunId(new Date(), 'UTC');
    let fires = 0;
    const fire = () =>
      enqueueNightlyRun(r.services.queues, {
        runId: night,
        trigger: 'schedule',
        asOf: r.asOf.toISOString(),
        selection: {},
      }).then(() => fires++);
    await fire();
    const { runId: backfill } = JSON.parse(await r.cli('backfill', '--all', '--json')) as { runId: string };
    const listRuns = async () => (await r.services.runs.list({ limit: 10 })).map((run) => run.runId);
    await until(async () => (await listRuns()).length >= 2, 30_000, r.tail.bind(r));
    // Keep firing while the night is running.
    for (let i = 0; i < 15; i++) {
      await fire();
      await sleep(200);
    }
    const runs = await r.settle(await listRuns());
    expect(runs.map((run) => run.trigger).sort()).toEqual(['backfill', 'schedule']);
    expect(runs.map((run) => run.runId).sort()).toEqual([backfill, night].sort());
    fires += r.workers.reduce((sum, w) => sum + w.logged('nightly run enqueued'), 0);
    expect(fires).toBeGreaterThan(10);
    // Every trigger after the first is a duplicate: fires - 1 from the schedulers, plus the backfill.
    record(`2 schedulers, ${fires} fires in all, and 1 backfill`, await r.audit(runs), fires);
  });

  it('the product redacts memories mid-run: no stage or vector keeps the removed sentence', async () => {
    const r = await rig();
    const secret = (id: string) => `My door code is 4417 for ${id}.`;
    // Calls that carry the sentence take longer, so that some are still in flight when it is removed.
    const carrying: Fault = { kind: 'slow', delayMs: 1_000 };
    r.emulator.setRule(({ body }) =>
      JSON.stringify(body).includes('My door code is 4417') ? carrying : LATENCY,
    );
    const { models } = r.services;
    // Before the night, the product stored a sentence in some due memories it will later remove.
    const due = (await models.memories
      .find({ 'meta.createdAt': { $lte: new Date(r.asOf.getTime() - 3 * 86_400_000) } })
      .lean()) as unknown as Memory[];
    const planted = due.filter((_, i) => i % 3 === 0);
    for (const doc of planted) {
      const [first, ...rest] = doc.content.raw as Turn[];
      expect(
        await r.productEdit(doc, [{ ...first!, text: `${first!.text} ${secret(doc.memoryId)}` }, ...rest]),
      ).toBe(true);
    }
    r.startWorker();
    r.startWorker();
    const runId = await r.runNight();
    await midRun(r);
    // Mid-run, the user removes it from every planted memory that has not reached its stage yet,
    // first from those whose call the emulator has received (in flight, or done and not yet applied).
    const received = r.emulator.requests.map((q) => JSON.stringify(q.body));
    const called = (id: string) => received.some((body) => body.includes(secret(id)));
    const order = [
      ...planted.filter((m) => called(m.memoryId)),
      ...planted.filter((m) => !called(m.memoryId)),
    ];
    const redacted: string[] = [];
    for (const { memoryId } of order) {
      const doc = (await models.memories.collection.findOne({ memoryId })) as unknown as Memory;
      if (doc.meta.compressionStage === stageDueAt(doc.meta.createdAt, r.asOf, r.services.config.policy))
        continue;
      const raw = (doc.content.raw as Turn[]).map((t) => ({
        ...t,
        text: t.text.replace(` ${secret(memoryId)}`, ''),
      }));
      if (await r.productEdit(doc, raw)) redacted.push(memoryId);
    }
    const runs = await r.settle([runId]);
    expect(redacted.length).toBeGreaterThan(10);
    const after = (await models.memories.find({ memoryId: { $in: redacted } }).lean()) as unknown as Memory[];
    const vectors = await r.services.vectors.get(redacted);
    for (const doc of after) expect(JSON.stringify(doc.compression), doc.memoryId).not.toContain('4417');
    for (const vector of vectors) expect(vector.text, vector.id).not.toContain('4417');
    expect(vectors).toHaveLength(redacted.length);
    // The edits reached memories the night was working on: calls carrying a removed sentence were
    // made, and none of their results was kept (above).
    const stale = r.emulator.requests.filter((q) =>
      redacted.some((id) => JSON.stringify(q.body).includes(secret(id))),
    );
    expect(stale.length).toBeGreaterThan(0);
    record(`${redacted.length} memories redacted mid-run`, await r.audit(runs), redacted.length);
  });

  it('the product deletes memories mid-run: the sweep leaves no vector record of them', async () => {
    const r = await rig();
    r.emulator.setRule(() => LATENCY);
    const { models, runs, vectors } = r.services;
    r.startWorker();
    r.startWorker();
    const runId = await r.runNight();
    // Every job is enqueued (the run counts them all), some done, some in flight, some waiting.
    await until(async () => Boolean((await runs.get(runId))?.producerDoneAt), 60_000, r.tail.bind(r));
    await midRun(r);
    const all = (await models.memories.find({}, { memoryId: 1 }).sort({ memoryId: 1 }).lean()) as {
      memoryId: string;
    }[];
    for (const [i, { memoryId }] of all.entries()) if (i % 5 === 0) await r.productDelete(memoryId);
    const deleted = r.deletedIds();
    expect(deleted.length).toBeGreaterThan(40);
    const settled = await r.settle([runId]);
    // The workers' erasure sweep (a page per VECTOR_SYNC_INTERVAL_MS) removes what the night wrote
    // for them, including records a drain wrote after the delete.
    await until(async () => (await vectors.get(deleted)).length === 0, 30_000, r.tail.bind(r));
    record(`${deleted.length} memories deleted mid-run`, await r.audit(settled), deleted.length);
  });

  it('model faults at a steady rate: 429, 500, timeouts, malformed and schema-breaking replies', async () => {
    const r = await rig();
    // Deterministic by request number; a repair call (it carries the bad answer) is never faulted,
    // so every fault is one the design promises to survive.
    r.emulator.setRule(({ index, body }) => {
      if (body.messages?.length > 1) return LATENCY;
      if (index % 31 === 1) return { kind: 'status', status: 429, retryAfterSeconds: 1 };
      if (index % 11 === 2) return { kind: 'status', status: 500 };
      if (index % 29 === 3) return { kind: 'slow', delayMs: 4_000 };
      if (index % 13 === 4) return { kind: 'malformed' };
      if (index % 17 === 5) return { kind: 'schema' };
      return LATENCY;
    });
    r.startWorker();
    const runId = await r.runNight();
    const runs = await r.settle([runId], 120_000);
    const faults = r.emulator.requests.filter((req) => req.fault && req.fault !== LATENCY).length;
    expect(faults).toBeGreaterThan(30);
    record('model faults (429, 500, timeout, malformed, schema)', await r.audit(runs), faults);
  });

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
