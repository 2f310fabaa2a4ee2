import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig, enqueueRun, type MemfadeConfig, type Operations, openOperations } from '@memfade/app';
import { F } from '@memfade/db';
import { createLogger } from '@memfade/runtime';
import { childEnv, type LlmEmulator, until } from '@memfade/testing';
import { type Ages, seed } from './dataset.js';
import { benchEnv } from './env.js';
import { procStat, type ThreadGroup, threadCpu } from './proc.js';

const WORKER = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
const POLL_MS = 50;
/** Runs take as long as the sizes ask; a worker that dies ends the wait instead (alive()). */
const NO_LIMIT = Number.POSITIVE_INFINITY;

export interface EndToEndOptions {
  latencyMs: number;
  concurrency: number;
  memories: number;
  users: number;
  dbPid?: number;
  /**
   * Memories in the run's collection: the warm-up's and the run's, plus memories due for nothing up
   * to this size (none when it is smaller). Runs of different sizes then meet the same collection:
   * the embedded MongoDB-wire server's cost per write grows with it.
   */
  collectionSize?: number;
  /** anthropic: the real SDK against the emulator (default); offline: no model client at all. */
  provider?: 'anthropic' | 'offline';
  /** Settings added to the worker's (traces-main.ts: OTEL_EXPORTER_OTLP_ENDPOINT). */
  workerEnv?: Record<string, string>;
}

export interface EndToEndResult {
  latencyMs: number;
  concurrency: number;
  memories: number;
  provider: 'anthropic' | 'offline';
  /** Memories in the run's collection (warm-up, run and filler), counted after the run. */
  collectionSize: number;
  /** From the run's enqueue to its finish: includes the scan, the first jobs' start and the last wave. */
  seconds: number;
  perSecond: number;
  /**
   * Memories per second between the 10th and the 90th percentile of job ends: the rate a long night
   * runs at, without the start-up and the last wave's tail that a short benchmark run inflates.
   */
  steadyPerSecond: number;
  /** CPU of the worker process per memory (the model's wait costs no CPU), after a warm-up run. */
  cpuMsPerMemory: number;
  /**
   * The same by thread: `main` (JavaScript), `v8` (V8's helpers: GC and background compilation),
   * `lancedb` (its Rust runtime), `other` (libuv's pool and the rest).
   */
  cpuMsPerMemoryByThread: Record<ThreadGroup, number>;
  /** The kernel's part of it: mostly loopback sockets to the co-located MongoDB, Redis and emulator. */
  systemCpuMsPerMemory: number;
  peakRssMb: number;
  /**
   * CPU of the MongoDB-wire server per memory, when the bench started it (null for MONGODB_URI):
   * it tells how much of the time per memory is the database's, not memfade's.
   */
  dbCpuMsPerMemory: number | null;
  /**
   * The MongoDB-wire server's CPU over the run's wall time (1 = one core busy), when the bench started
   * it. That server applies a collection's writes one at a time: near 1, the run waits on it.
   */
  dbBusyShare: number | null;
  /** Redis memory taken per queued compress job, measured before the workers start. */
  redisBytesPerJob: number;
  jobSecondsP50: number;
  jobSecondsP95: number;
  /**
   * Requests the model endpoint received per memory (0 for the offline compressor). The bound
   * C / L holds for one call per memory: a memory too short for the model, or one that needs a
   * repair call, would move it.
   */
  modelCallsPerMemory: number;
}

async function redisUsedMemory(operations: Operations): Promise<number> {
  const info = await operations.redis.info('memory');
  return Number(info.match(/used_memory:(\d+)/)?.[1] ?? 0);
}

const modelCalls = (emulator: LlmEmulator) => emulator.requests.filter((r) => r.api !== 'embeddings').length;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/** Jobs per second between the 10th and 90th percentile of their end times (sorted, in ms). */
function steadyRate(endTimes: number[]): number | undefined {
  const first = Math.floor(endTimes.length * 0.1);
  const last = Math.floor(endTimes.length * 0.9);
  const span = (endTimes[last]! - endTimes[first]!) / 1000;
  return last > first && span > 0 ? (last - first) / span : undefined;
}

/** Enqueues a run of every due memory and waits for it to finish; calls onPoll meanwhile. */
export async function runToEnd(operations: Operations, onPoll: () => Promise<void>): Promise<string> {
  const runId = await enqueueRun(operations, { trigger: 'manual' });
  const finished = async () => {
    const run = await operations.runs.get(runId);
    await onPoll();
    return Boolean(run?.finishedAt);
  };
  await until(finished, NO_LIMIT, () => `run ${runId} finished`, POLL_MS);
  return runId;
}

/** Waits until no memory waits for its vector record (VECTOR_SYNC_ENABLED is on in the worker). */
export async function outboxDrained(operations: Operations, alive: () => Promise<void>): Promise<void> {
  const pending = { [F.vectorPending]: true };
  const drained = async () => {
    await alive();
    return (await operations.models.memories.collection.countDocuments(pending)) === 0;
  };
  await until(drained, NO_LIMIT, () => 'vector outbox drained', POLL_MS);
}

/** The worker's settings as the bench gives them (`env` adds or overrides: MODEL_MODE=batch). */
export function workerSettings(
  config: MemfadeConfig,
  emulator: LlmEmulator,
  options: { tag: string; provider: string; concurrency: number; env?: Record<string, string> },
): Record<string, string | undefined> {
  return {
    REDIS_URL: config.redisUrl,
    MONGODB_URI: config.mongodbUri,
    MONGODB_DB: options.tag,
    MEMFADE_QUEUE_PREFIX: options.tag,
    LANCEDB_DIR: join(tmpdir(), `memfade-bench-${options.tag}`),
    MEMFADE_PROVIDER: options.provider,
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: emulator.url,
    MEMFADE_MODEL: 'emulated',
    // This part measures the sync path: one compress job per memory.
    MODEL_MODE: 'sync',
    WORKER_CONCURRENCY: String(options.concurrency),
    SCHEDULER_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    NODE_OPTIONS: benchEnv.workerNodeOptions,
    ...options.env,
  };
}

/**
 * The built worker as its own process, the way it runs in production; `env` adds or overrides
 * settings (the batch night's MODEL_MODE=batch).
 */
export function startWorker(
  config: MemfadeConfig,
  emulator: LlmEmulator,
  options: { tag: string; provider: string; concurrency: number; env?: Record<string, string> },
) {
  const child = spawn(process.execPath, [...benchEnv.workerNodeFlags, WORKER], {
    stdio: 'ignore',
    env: childEnv(workerSettings(config, emulator, options)),
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve();
    }),
  );
  return {
    pid: child.pid!,
    /** Throws once the worker has exited: a run would otherwise be waited for forever. */
    alive: async () => {
      if (exitCode !== undefined) throw new Error(`the worker process exited (${exitCode}) during the run`);
    },
    stop: async () => {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Due memories through a real worker process (the built apps/worker) with the Anthropic SDK
 * against the emulator answering after `latencyMs`: throughput, CPU and memory of the worker.
 * A warm-up run of `concurrency` memories goes first, so the numbers are a running worker's (its
 * connection pools full, its code compiled), as every night after the first finds it.
 */
export async function benchmarkEndToEnd(
  base: MemfadeConfig,
  emulator: LlmEmulator,
  options: EndToEndOptions,
): Promise<EndToEndResult> {
  const tag = `e2e-${Date.now().toString(36)}`;
  const config = defaultConfig({ ...base, mongodbDb: tag, queuePrefix: tag });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  const provider = options.provider ?? 'anthropic';
  emulator.setRule(options.latencyMs > 0 ? () => ({ kind: 'slow', delayMs: options.latencyMs }) : undefined);
  const seedAt = (memories: number, idPrefix: string, ages: Ages = 'dueForV1') =>
    seed(operations.models, { memories, users: options.users, now: new Date(), ages, idPrefix });
  const filler = (options.collectionSize ?? 0) - options.concurrency - options.memories;
  const worker = startWorker(config, emulator, {
    tag,
    provider,
    concurrency: options.concurrency,
    ...(options.workerEnv && { env: options.workerEnv }),
  });
  try {
    if (filler > 0) await seedAt(filler, 'filler-', 'notDue');
    await seedAt(options.concurrency, 'warmup-');
    await runToEnd(operations, worker.alive);
    await outboxDrained(operations, worker.alive);
    await seedAt(options.memories, '');
    const redisBefore = await redisUsedMemory(operations);
    const callsBefore = modelCalls(emulator);
    const idle = await procStat(worker.pid);
    const idleThreads = await threadCpu(worker.pid);
    const dbIdle = options.dbPid ? await procStat(options.dbPid) : undefined;
    const started = performance.now();
    let redisPeak = 0;
    const runId = await runToEnd(operations, async () => {
      await worker.alive();
      redisPeak = Math.max(redisPeak, await redisUsedMemory(operations));
    });
    const seconds = (performance.now() - started) / 1000;
    const calls = modelCalls(emulator) - callsBefore;
    // The worker's CPU is read once the vector outbox is drained too: the embedding and LanceDB writes
    // that a run leaves behind (up to a flush delay after its last stage write) are part of its cost.
    await outboxDrained(operations, worker.alive);
    const busy = await procStat(worker.pid);
    const busyThreads = await threadCpu(worker.pid);
    const dbBusy = options.dbPid ? await procStat(options.dbPid) : undefined;
    const measuredMs = performance.now() - started;
    await worker.stop();
    const jobs = (await operations.queues.compress.getJobs(['completed'], 0, -1)).filter(
      (j) => j.data.runId === runId,
    );
    const durations = jobs
      .map((j) => ((j.finishedOn ?? 0) - (j.processedOn ?? 0)) / 1000)
      .sort((a, b) => a - b);
    const perSecond = options.memories / seconds;
    return {
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      memories: options.memories,
      collectionSize: await operations.models.memories.countDocuments(),
      provider,
      seconds,
      perSecond,
      steadyPerSecond: steadyRate(jobs.map((j) => j.finishedOn ?? 0).sort((a, b) => a - b)) ?? perSecond,
      cpuMsPerMemory: (busy.cpuMs - idle.cpuMs) / options.memories,
      cpuMsPerMemoryByThread: Object.fromEntries(
        Object.entries(busyThreads).map(([group, ms]) => [
          group,
          (ms - idleThreads[group as ThreadGroup]) / options.memories,
        ]),
      ) as Record<ThreadGroup, number>,
      systemCpuMsPerMemory: (busy.systemMs - idle.systemMs) / options.memories,
      peakRssMb: busy.peakRssMb,
      dbCpuMsPerMemory: dbIdle && dbBusy ? (dbBusy.cpuMs - dbIdle.cpuMs) / options.memories : null,
      dbBusyShare: dbIdle && dbBusy ? (dbBusy.cpuMs - dbIdle.cpuMs) / measuredMs : null,
      redisBytesPerJob: Math.max(0, redisPeak - redisBefore) / options.memories,
      jobSecondsP50: percentile(durations, 0.5),
      jobSecondsP95: percentile(durations, 0.95),
      modelCallsPerMemory: calls / options.memories,
    };
  } finally {
    await worker.stop();
    emulator.setRule(undefined);
    await operations.close();
    await rm(join(tmpdir(), `memfade-bench-${tag}`), { recursive: true, force: true });
  }
}
