import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, type MemfadeConfig, openOperations } from '@memfade/app';
import { addUsage, costOf, type PriceTable, type Usage, ZERO_USAGE } from '@memfade/core';
import { createLogger } from '@memfade/runtime';
import { startLlmEmulator } from '@memfade/testing';
import { seed } from './dataset.js';
import { runToEnd, startWorker } from './end-to-end.js';
import { procStat, type ThreadGroup, threadCpu } from './proc.js';

type ModelPrice = PriceTable[string];

/**
 * List prices, US dollars per million tokens (input, output, 5-minute cache write, cache read), of
 * the models the night can be priced for (BENCH_BATCH_MODEL). Batch prices are half of each (the
 * default batchFactor), what Anthropic's Message Batches and OpenAI's Batch API charge. OpenAI has no
 * cache-write surcharge: a write is billed as input. The emulator applies each real model's caching
 * rules (minimum prefix, 128-token steps, best-effort hits in batches: testing's cache-rules.ts);
 * 'emulated' caches any prefix (the old, too generous figure) at claude-haiku-4-5's prices.
 */
export const LIST_PRICES: Record<string, ModelPrice> = {
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheWrite: 0.4, cacheRead: 0.1 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheWrite: 0.25, cacheRead: 0.025 },
  emulated: { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
};

/** The model a night is priced for unless told (bench.test's plumbing check keeps the permissive name). */
export const BATCH_BENCH_MODEL = 'emulated';

/** The provider whose SDK and batch API a model name goes through. */
export const providerOf = (model: string) =>
  model.startsWith('claude') || model === 'emulated' ? 'anthropic' : 'openai';

/** A warm-up night first (at least BATCH_MIN_CALLS, so it goes through batches too). */
const WARMUP_MEMORIES = 60;

export interface BatchNightOptions {
  memories: number;
  users: number;
  /** Worker processes sharing the night (submit, poll and apply run on whichever takes the job). */
  workers: number;
  /** A model of LIST_PRICES (default BATCH_BENCH_MODEL): its name, provider, prices and caching rules. */
  model?: string;
  dbPid?: number;
  /** How long the idle workers' CPU is sampled before the night (30 s: CPU times come in 10 ms ticks, and the rate is multiplied by the night's length). */
  idleSampleMs?: number;
}

export interface BatchNightResult {
  memories: number;
  users: number;
  workers: number;
  model: string;
  price: ModelPrice;
  /** From the run's enqueue to its finish (the emulator ends a batch at its first look). */
  seconds: number;
  batches: number;
  /** Model requests sent inside batches, and synchronously (repair calls) during the night. */
  requestsInBatches: number;
  syncRequests: number;
  /** The night's token usage as the run recorded it from the batch results. */
  usage: Usage;
  /** US dollars for the night's memories, three ways from the same usage (see docs/benchmarks.md). */
  cost: { naiveSync: number; cachedSync: number; batch: number };
  /** What the worker recorded on the run (MEMFADE_PRICES set to the same table): equals cost.batch. */
  runCost: number;
  /** cost.batch / cost.naiveSync: the issue's target is at most 45%. */
  batchOverNaive: number;
  /** CPU of all worker processes per memory (user + system), after the warm-up night. */
  cpuMsPerMemory: number;
  /** The same per worker process. */
  cpuMsPerMemoryByWorker: number[];
  /** Of cpuMsPerMemory, the part spent in the kernel (socket reads and writes, mostly). */
  kernelMsPerMemory: number;
  /** The same by thread group, all workers: `main` (JavaScript), `v8` (GC, compilation), `other` (libuv, the rest). */
  cpuMsPerMemoryByThread: Record<ThreadGroup, number>;
  /** All workers' CPU per second while no run is going: part of cpuMsPerMemory, for as long as the night lasts. */
  idleCpuMsPerSecond: number;
  /** The MongoDB-wire server's CPU per memory when the bench started it: beside memfade's, not in it. */
  dbCpuMsPerMemory: number | null;
}

/** Every input token at the input price: what a per-request client without prompt caching pays. */
export function naiveUsage(usage: Usage): Usage {
  return {
    ...ZERO_USAGE,
    inputTokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    outputTokens: usage.outputTokens,
  };
}

/**
 * A night of due memories (zh and en, each user's own role card) through worker processes in
 * MODEL_MODE=batch with the model's provider SDK against the emulator's batch API, priced three
 * ways from the usage the run recorded, and memfade's own CPU per memory in those processes.
 *
 * The sync prices come from the same requests' usage, not from a second, sync run: the emulator
 * answers a batch request with the code that answers a sync one (same body, same usage, the same
 * caching rules for the model), and memfade sends the same body both ways, so a sync night of
 * these memories reports the same tokens, except that a batch's cache reads are best-effort
 * (fewer than sync would get). It halves the database's time too.
 */
export async function benchmarkBatchNight(
  base: MemfadeConfig,
  options: BatchNightOptions,
): Promise<BatchNightResult> {
  const tag = `batch-${Date.now().toString(36)}`;
  const config = defaultConfig({ ...base, mongodbDb: tag, queuePrefix: tag });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  const model = options.model ?? BATCH_BENCH_MODEL;
  const price = LIST_PRICES[model];
  if (!price)
    throw new Error(
      `BENCH_BATCH_MODEL: no list price for '${model}' (${Object.keys(LIST_PRICES).join(', ')})`,
    );
  const provider = providerOf(model);
  // An emulator of its own: its prompt cache starts empty, as a night's first request finds it.
  const emulator = await startLlmEmulator();
  const env = {
    MODEL_MODE: 'batch',
    BATCH_POLL_MS: '100',
    MEMFADE_MODEL: model,
    MEMFADE_PRICES: JSON.stringify({ [model]: price }),
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${emulator.url}/v1`,
    // Embedding and vector writes are not part of request building and result application.
    VECTOR_SYNC_ENABLED: 'false',
  };
  const workers = Array.from({ length: options.workers }, () =>
    startWorker(config, emulator, { tag, provider, concurrency: 16, env }),
  );
  const alive = async () => {
    for (const worker of workers) await worker.alive();
  };
  const stats = async () => Promise.all(workers.map((w) => procStat(w.pid)));
  const cpu = async () => (await stats()).map((stat) => stat.cpuMs);
  const kernel = async () => (await stats()).reduce((sum, stat) => sum + stat.systemMs, 0);
  const threads = async () => {
    const all = await Promise.all(workers.map((w) => threadCpu(w.pid)));
    const sum: Record<ThreadGroup, number> = { main: 0, v8: 0, lancedb: 0, other: 0 };
    for (const groups of all)
      for (const [group, ms] of Object.entries(groups)) sum[group as ThreadGroup] += ms;
    return sum;
  };
  try {
    const seedAt = (memories: number, idPrefix: string) =>
      seed(operations.models, {
        memories,
        users: options.users,
        now: new Date(),
        ages: 'dueForV1',
        idPrefix,
      });
    await seedAt(WARMUP_MEMORIES, 'warmup-');
    await runToEnd(operations, alive);
    // What the workers spend doing nothing (timers, Redis blocking reads, the run watchdog), so the
    // night's CPU can be read apart from it: a longer night on a slower database costs more of it.
    const idleFrom = await cpu();
    const idleMs = options.idleSampleMs ?? 30_000;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleCpuMsPerSecond =
      ((await cpu()).reduce((a, b) => a + b, 0) - idleFrom.reduce((a, b) => a + b, 0)) / (idleMs / 1000);
    await seedAt(options.memories, '');
    const requestsBefore = emulator.requests.length;
    const idle = await cpu();
    const kernelIdle = await kernel();
    const threadsIdle = await threads();
    const dbIdle = options.dbPid ? await procStat(options.dbPid) : undefined;
    const started = performance.now();
    const runId = await runToEnd(operations, alive);
    const seconds = (performance.now() - started) / 1000;
    const busy = await cpu();
    const kernelBusy = await kernel();
    const threadsBusy = await threads();
    const dbBusy = options.dbPid ? await procStat(options.dbPid) : undefined;
    const run = (await operations.runs.get(runId))!;
    const requests = emulator.requests.slice(requestsBefore).filter((r) => r.api !== 'embeddings');
    const usage = addUsage(run.tokens.v1, run.tokens.v2);
    const cost = {
      naiveSync: costOf(naiveUsage(usage), price),
      cachedSync: costOf(usage, price),
      batch: costOf(usage, price, { batch: true }),
    };
    const byWorker = busy.map((ms, i) => (ms - idle[i]!) / options.memories);
    return {
      memories: options.memories,
      users: options.users,
      workers: options.workers,
      model,
      price,
      seconds,
      // Counted from the requests: memfade deletes a provider's batch once its results are applied.
      batches: new Set(requests.map((r) => r.batchId).filter(Boolean)).size,
      requestsInBatches: requests.filter((r) => r.batchId).length,
      syncRequests: requests.filter((r) => !r.batchId).length,
      usage,
      cost,
      runCost: run.cost.v1 + run.cost.v2,
      batchOverNaive: cost.batch / cost.naiveSync,
      cpuMsPerMemory: byWorker.reduce((a, b) => a + b, 0),
      cpuMsPerMemoryByWorker: byWorker,
      kernelMsPerMemory: (kernelBusy - kernelIdle) / options.memories,
      idleCpuMsPerSecond,
      cpuMsPerMemoryByThread: Object.fromEntries(
        Object.entries(threadsBusy).map(([group, ms]) => [
          group,
          (ms - threadsIdle[group as ThreadGroup]) / options.memories,
        ]),
      ) as Record<ThreadGroup, number>,
      dbCpuMsPerMemory: dbIdle && dbBusy ? (dbBusy.cpuMs - dbIdle.cpuMs) / options.memories : null,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await emulator.close();
    await operations.close();
    await rm(join(tmpdir(), `memfade-bench-${tag}`), { recursive: true, force: true });
  }
}

/** The idle workers' CPU over the night, per memory: a night on a slower database costs more of it. */
export const idleShare = (r: BatchNightResult) => (r.idleCpuMsPerSecond * r.seconds) / r.memories;

const usd = (dollars: number) => `$${dollars.toFixed(2)}`;

export function batchNightTable(r: BatchNightResult): string {
  const p = r.price;
  const share = (dollars: number) => `${((dollars / r.cost.naiveSync) * 100).toFixed(0)}%`;
  const u = r.usage;
  return [
    `### Batch night: ${r.memories} memories, ${r.users} users, ${r.workers} worker processes`,
    '',
    `Prices: ${r.model} list, $ per million tokens: input ${p.input}, output ${p.output}, cache write ` +
      `${p.cacheWrite}, cache read ${p.cacheRead}; batch half of each. ${r.batches} batches, ` +
      `${r.requestsInBatches} requests in batches, ${r.syncRequests} sync; ${r.seconds.toFixed(1)} s.`,
    `Tokens: input ${u.inputTokens}, output ${u.outputTokens}, cache write ${u.cacheWriteTokens}, ` +
      `cache read ${u.cacheReadTokens}.`,
    '',
    '| priced as | cost | per 1000 memories | of naive sync |',
    '| --- | --- | --- | --- |',
    ...(
      [
        ['sync, no prompt caching (naive)', r.cost.naiveSync],
        ['sync, prompt caching', r.cost.cachedSync],
        ['batch, prompt caching (the run)', r.cost.batch],
      ] as const
    ).map(
      ([name, dollars]) =>
        `| ${name} | ${usd(dollars)} | ${usd((dollars * 1000) / r.memories)} | ${share(dollars)} |`,
    ),
    '',
    `memfade CPU per memory in batch mode (all worker processes): ${r.cpuMsPerMemory.toFixed(3)} ms ` +
      `(${r.cpuMsPerMemoryByWorker.map((ms) => ms.toFixed(3)).join(' + ')}; by thread: ` +
      `${Object.entries(r.cpuMsPerMemoryByThread)
        .map(([group, ms]) => `${group} ${ms.toFixed(3)}`)
        .join(', ')}; in the kernel ${r.kernelMsPerMemory.toFixed(3)}).`,
    `Of it, idle workers (timers, Redis blocking reads) for the night's ${r.seconds.toFixed(0)} s: ` +
      `${idleShare(r).toFixed(3)} ms (${r.idleCpuMsPerSecond.toFixed(1)} ms of CPU per second); building ` +
      `requests and applying results: ${(r.cpuMsPerMemory - idleShare(r)).toFixed(3)} ms.`,
    `MongoDB-wire server beside it (not memfade's): ${r.dbCpuMsPerMemory?.toFixed(3) ?? '-'} ms per memory.`,
  ].join('\n');
}
