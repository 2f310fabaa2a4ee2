import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@memfade/runtime';
import {
  defaultConfig,
  enqueueRun,
  type MemfadeConfig,
  type Operations,
  openOperations,
} from '@memfade/service';
import type { LlmEmulator } from '@memfade/testing';
import { seed } from './dataset.js';
import { procStat } from './proc.js';

const WORKER = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));

export interface EndToEndResult {
  latencyMs: number;
  concurrency: number;
  memories: number;
  seconds: number;
  perSecond: number;
  /** CPU of the worker process per memory (the model's wait costs no CPU). */
  cpuMsPerMemory: number;
  peakRssMb: number;
  /**
   * CPU of the MongoDB-wire server per memory, when the bench started it (null for MONGODB_URI):
   * it tells how much of the time per memory is the database's, not memfade's.
   */
  dbCpuMsPerMemory: number | null;
  /** Redis memory taken per queued compress job, measured before the workers start. */
  redisBytesPerJob: number;
  jobSecondsP50: number;
  jobSecondsP95: number;
}

async function redisUsedMemory(operations: Operations): Promise<number> {
  const info = await operations.redis.info('memory');
  return Number(info.match(/used_memory:(\d+)/)?.[1] ?? 0);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/**
 * Due memories through a real worker process (the built apps/worker) with the Anthropic SDK
 * against the emulator answering after `latencyMs`: throughput, CPU and memory of the worker.
 */
export async function benchmarkEndToEnd(
  base: MemfadeConfig,
  emulator: LlmEmulator,
  options: { latencyMs: number; concurrency: number; memories: number; users: number; dbPid?: number },
): Promise<EndToEndResult> {
  const tag = `e2e-${Date.now().toString(36)}`;
  const config = defaultConfig({ ...base, mongodbDb: tag, queuePrefix: tag });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  emulator.setRule(options.latencyMs > 0 ? () => ({ kind: 'slow', delayMs: options.latencyMs }) : undefined);
  try {
    await seed(operations.models, {
      memories: options.memories,
      users: options.users,
      now: new Date(),
      allDueForV1: true,
    });
    const worker = spawn(process.execPath, [WORKER], {
      stdio: 'ignore',
      env: {
        ...process.env,
        REDIS_URL: config.redisUrl,
        MONGODB_URI: config.mongodbUri,
        MONGODB_DB: tag,
        MEMFADE_QUEUE_PREFIX: tag,
        LANCEDB_DIR: join(tmpdir(), `memfade-bench-${tag}`),
        MEMFADE_PROVIDER: 'anthropic',
        ANTHROPIC_API_KEY: 'bench',
        ANTHROPIC_BASE_URL: emulator.url,
        MEMFADE_MODEL: 'emulated',
        WORKER_CONCURRENCY: String(options.concurrency),
        SCHEDULER_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      },
    });
    const redisBefore = await redisUsedMemory(operations);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // let the worker boot
    const idle = await procStat(worker.pid!);
    const dbIdle = options.dbPid ? await procStat(options.dbPid) : undefined;
    const started = performance.now();
    const runId = await enqueueRun(operations, { trigger: 'manual' });
    let redisPeak = 0;
    for (;;) {
      const run = await operations.runs.get(runId);
      redisPeak = Math.max(redisPeak, await redisUsedMemory(operations));
      if (run?.finishedAt) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const busy = await procStat(worker.pid!);
    const dbBusy = options.dbPid ? await procStat(options.dbPid) : undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
    const jobs = await operations.queues.compress.getJobs(['completed'], 0, -1);
    const durations = jobs
      .map((j) => ((j.finishedOn ?? 0) - (j.processedOn ?? 0)) / 1000)
      .sort((a, b) => a - b);
    return {
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      memories: options.memories,
      seconds,
      perSecond: options.memories / seconds,
      cpuMsPerMemory: (busy.cpuMs - idle.cpuMs) / options.memories,
      peakRssMb: busy.peakRssMb,
      dbCpuMsPerMemory: dbIdle && dbBusy ? (dbBusy.cpuMs - dbIdle.cpuMs) / options.memories : null,
      redisBytesPerJob: Math.max(0, redisPeak - redisBefore) / options.memories,
      jobSecondsP50: percentile(durations, 0.5),
      jobSecondsP95: percentile(durations, 0.95),
    };
  } finally {
    emulator.setRule(undefined);
    await operations.close();
    await rm(join(tmpdir(), `memfade-bench-${tag}`), { recursive: true, force: true });
  }
}
