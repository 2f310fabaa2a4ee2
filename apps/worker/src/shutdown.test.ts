import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { enqueueRun } from '@memfade/app';
import type { Memory } from '@memfade/core';
import { insertMemories } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { type Harness, startHarness } from '@memfade/system-tests';
import { childEnv, type LlmEmulator, startLlmEmulator, until, WORKER_WAIT_MS } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const GRACE_MS = 8_000;

// The waits end when the jobs get there; their caps are for a loaded machine.
describe('worker process shutdown with jobs in flight', { timeout: 2 * WORKER_WAIT_MS }, () => {
  let harness: Harness;
  let emulator: LlmEmulator;
  const children: ChildProcess[] = [];
  let due = 0;

  const startWorker = () => {
    const { config } = harness;
    const env = childEnv({
      REDIS_URL: config.redisUrl,
      MONGODB_URI: config.mongodbUri,
      MONGODB_DB: config.mongodbDb,
      MEMFADE_QUEUE_PREFIX: config.queuePrefix,
      LANCEDB_DIR: config.vector.dir,
      MEMFADE_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: emulator.url,
      MEMFADE_MODEL: 'emulated',
      // Compress jobs, as these scenarios are written for (batch mode has its own tests).
      MODEL_MODE: 'sync',
      WORKER_CONCURRENCY: '2',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });
    const child = spawn(process.execPath, [main], { env, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const counts = async () => {
    const c = await harness.services.queues.compress.getJobCounts();
    const n = (state: string) => c[state] ?? 0;
    return {
      completed: n('completed'),
      failed: n('failed'),
      waiting: n('waiting'),
      active: n('active'),
      delayed: n('delayed'),
      prioritized: n('prioritized'),
    };
  };

  beforeAll(async () => {
    emulator = await startLlmEmulator();
    harness = await startHarness({ now: new Date() });
    const data = generateDemoData({ now: new Date(), users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    due = data.memories.filter(
      (m) => (m.meta as { createdAt: Date }).createdAt.getTime() <= Date.now() - 3 * 86_400_000,
    ).length;
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await harness?.close();
    await emulator?.close();
  });

  it('SIGTERM finishes the active jobs within the grace period, exits 143, and loses no job', async () => {
    emulator.setRule(() => ({ kind: 'slow', delayMs: 700 }));
    const worker = startWorker();
    await enqueueRun(harness.services, { trigger: 'manual' });
    await until(async () => (await counts()).completed >= 2 && (await counts()).active > 0, WORKER_WAIT_MS);
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    const signalled = Date.now();
    worker.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS);
    const after = await counts();
    expect(after.active).toBe(0);
    expect(after.failed).toBe(0);
    expect(after.completed).toBeLessThan(due);
    // Every job is either done or still waiting for the next worker.
    expect(after.completed + after.waiting + after.delayed + after.prioritized).toBe(due);
  });

  it('another worker then completes the rest, each stage applied once', async () => {
    emulator.setRule(undefined);
    startWorker();
    await until(async () => (await counts()).completed === due, WORKER_WAIT_MS);
    const docs = (await harness.services.models.memories.find({}).lean()) as unknown as Memory[];
    for (const doc of docs) {
      const stages = doc.compression?.history.map((h) => h.stage) ?? [];
      expect(new Set(stages).size, doc.memoryId).toBe(stages.length);
    }
    expect(docs.filter((d) => d.meta.compressionStage !== 'raw')).toHaveLength(due);
  });
});
