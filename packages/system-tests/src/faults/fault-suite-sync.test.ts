import { setTimeout as sleep } from 'node:timers/promises';
import { enqueueRun, nightlyRunId } from '@memfade/app';
import { type Memory, stageDueAt, type Turn } from '@memfade/core';
import { enqueueNightlyRun } from '@memfade/queue';
import { startRedisServer } from '@memfade/runtime';
import { type Fault, startTcpProxy, tempDir, until, WORKER_WAIT_MS, workerMongoUri } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';
import { faultTable, LATENCY, midRun, ROW_TIMEOUT_MS } from './fault-table.js';

/**
 * The promise of docs/design.md §5, tested the hard way, with compress jobs (their budget and billing
 * rows are fault-suite-sync-money.test.ts, the batch-mode rows fault-suite.test.ts): a nightly run over a few hundred memories through worker processes
 * started from the built binary, on real Redis and a real MongoDB-wire server, with one fault
 * injected per test. Each test ends with a full audit of every memory.
 */

// Slow scenarios: whole nights through worker processes; 12-55 s each (loaded machine), so 2 minutes.
describe('fault suite (compress jobs): nothing lost, nothing applied twice', {
  timeout: ROW_TIMEOUT_MS,
}, () => {
  const { cleanups, record, rig } = faultTable('fault-suite-sync');

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
      until(
        async () => w.logged('MongoDB unreachable: waiting for it, with backoff') > 0,
        WORKER_WAIT_MS,
        w.output,
      ),
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

  it("MongoDB away through jobs' every attempt: their failures are the outage's, counted once it is back, and the next run compresses them", async () => {
    // simulate --seed 14123: a job's last attempt could not record its failure (MongoDB cut off), so its
    // memory had no reason anywhere and the failed job held it back from the next nights.
    const proxy = await startTcpProxy({ port: Number(new URL(workerMongoUri(inject('mongoUris'))).port) });
    cleanups.push(() => proxy.close());
    const r = await rig({ workerMongoUri: `mongodb://127.0.0.1:${proxy.port}` });
    r.emulator.setRule(() => LATENCY);
    // Attempts 100 ms apart and a short wait for a server: a job's five attempts end within the cut.
    r.startWorker({ JOB_RETRY_BACKOFF_MS: '100', CONNECT_TIMEOUT_MS: '1000' });
    const first = await r.runNight();
    await midRun(r);
    await proxy.cut();
    const failed = () => r.services.queues.compress.getFailedCount();
    await until(
      async () => (await failed()) > 0,
      WORKER_WAIT_MS,
      () => r.tail(),
    );
    await proxy.restore();
    const [night] = await r.settle([first]);
    const unrecorded = await failed();
    const errors = await r.services.runs.errors(first, 1_000);
    // Counted once MongoDB was back, each with the outage as its reason (not the memory's failure),
    // a last attempt that wrote its stages and found MongoDB away again as it counted its end too
    // (compress.ts endedWell; before it, likely the one whole-suite run in six that counted 7 failed
    // where BullMQ held 8). Should they disagree again, what each failed job left, to tell why.
    const why = async () => {
      const listed = new Set(errors.map((e) => e.memoryId));
      const lines = [`run finished at ${night!.finishedAt?.toISOString()}`];
      for (const job of await r.services.queues.compress.getFailed()) {
        const doc = await r.services.models.memories.collection.findOne({ memoryId: job.data.memoryId });
        const carries = Boolean(
          (doc as { compression?: { lastError?: unknown } } | null)?.compression?.lastError,
        );
        lines.push(
          `${job.data.memoryId}: failed at ${new Date(job.finishedOn ?? 0).toISOString()}, listed ${listed.has(job.data.memoryId)}, carries an error ${carries}, ${job.failedReason?.slice(0, 80)}`,
        );
      }
      return lines.join('\n');
    };
    if (night!.counts.failed !== unrecorded) expect(night!.counts.failed, await why()).toBe(unrecorded);
    expect(errors).toHaveLength(unrecorded);
    for (const error of errors) expect(error.message).toMatch(/^MongoDB was away at the last attempt: /);
    // The next night (a second later) replaces those failed jobs: every memory at its stage.
    const second = await enqueueRun(r.services, {
      trigger: 'manual',
      asOf: new Date(r.asOf.getTime() + 1_000),
    });
    const [, next] = await r.settle([first, second]);
    expect(next!.counts.failed).toBe(0);
    const audit = await r.audit([night!, next!]);
    expect(audit.lost, audit.lostDetails.join('\n')).toBe(0);
    expect(audit.appliedTwice).toBe(0);
  });

  it('a crash between the stage writes and the vector upserts: the outbox sweeper repairs the store', async () => {
    const r = await rig({ remoteEmbedder: true });
    // Embeddings hang, so every stage is written while no vector is.
    r.emulator.setRule(({ api }) => (api === 'embeddings' ? { kind: 'slow', delayMs: 60_000 } : undefined));
    const crashed = r.startWorker();
    const runId = await r.runNight();
    await until(
      async () => Boolean((await r.services.runs.get(runId))?.finishedAt),
      WORKER_WAIT_MS,
      r.tail.bind(r),
    );
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
    await until(async () => (await listRuns()).length >= 2, WORKER_WAIT_MS, r.tail.bind(r));
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
    await until(async () => Boolean((await runs.get(runId))?.producerDoneAt), WORKER_WAIT_MS, r.tail.bind(r));
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
    await until(async () => (await vectors.get(deleted)).length === 0, WORKER_WAIT_MS, r.tail.bind(r));
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
    const runs = await r.settle([runId]);
    const faults = r.emulator.requests.filter((req) => req.fault && req.fault !== LATENCY).length;
    expect(faults).toBeGreaterThan(30);
    record('model faults (429, 500, timeout, malformed, schema)', await r.audit(runs), faults);
  });
});
