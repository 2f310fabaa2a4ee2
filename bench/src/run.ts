import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, openOperations } from '@memfade/app';
import { createLogger, startMongoServer, startRedisServer } from '@memfade/runtime';
import { type EmbeddedPostgres, startLlmEmulator, startPgliteServer } from '@memfade/testing';
import { type BatchNightResult, batchNightTable, benchmarkBatchNight } from './batch-night.js';
import { throughputChart } from './chart.js';
import { seed } from './dataset.js';
import { benchmarkDbCost, type DbCostResult, dbCostTable } from './db-cost.js';
import { benchmarkEndToEnd, type EndToEndResult } from './end-to-end.js';
import { benchmarkFloor, type FloorResult } from './floor.js';
import { benchmarkProducer, type ProducerResult } from './producer.js';
import { benchmarkSequential, type SequentialResult } from './sequential.js';
import type { SweepResult } from './sweep-result.js';
import {
  benchmarkVectorScaling,
  VECTOR_BENCH_STORES,
  type VectorBenchStore,
  type VectorPhaseResult,
  type VectorScalingResult,
} from './vector-scaling.js';

export interface BenchOptions {
  memories: number;
  users: number;
  redisUrl?: string;
  mongodbUri?: string;
  resultsDir: string;
  /** Memories for the L = 0 run (the pipeline's own ceiling). */
  ceilingMemories: number;
  latencyMs: number;
  concurrencies: number[];
  /** Memories per unit of concurrency in the latency sweep (C x this memories per run). */
  memoriesPerSlot: number;
  /** Memories for seed 003's sequential loop at latency L (it does one per L). */
  sequentialMemories: number;
  /** Sizes of the L = 0 scaling runs, at the largest concurrency. */
  scalingSizes: number[];
  /** Table sizes for each vector store alone (a night of inserts, then one of updates). */
  vectorScalingSizes: number[];
  /** Which vector stores (default all three); pgvector runs on PGlite unless pgvectorUrl is given. */
  vectorStores?: readonly VectorBenchStore[];
  /** A PostgreSQL with pgvector for the pgvector store (PGVECTOR_URL). */
  pgvectorUrl?: string;
  /** Calls of each kind in the worker's CPU floor (after as many warm-up calls). */
  floorCalls: number;
  /** The night whose MongoDB commands are counted, in each mode (db-cost.ts). */
  dbMemories: number;
  dbUsers: number;
  dbMemoryChars?: number;
  dbIdleSampleMs?: number;
  /** The batch night (MODEL_MODE=batch): its memories, users with a role card each, worker processes. */
  batchMemories: number;
  batchUsers: number;
  batchWorkers: number;
  batchIdleSampleMs?: number;
  /** The batch night's model (batch-night.ts LIST_PRICES); unset: BATCH_BENCH_MODEL. */
  batchModel?: string;
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; node: string };
  producer: ProducerResult;
  /** A night's MongoDB commands, sync and batch, counted by the driver in the worker role. */
  dbCost: DbCostResult[];
  endToEnd: {
    ceiling: EndToEndResult;
    /** The same L = 0 run with the offline compressor: the worker's CPU without any model client. */
    ceilingOffline: EndToEndResult;
    sweep: SweepResult[];
    /** The worker's CPU floor at the sweep's C = 64 (or last): what its libraries cost at least. */
    floor: FloorResult;
  };
  sequential: SequentialResult & { speedupAtC64: number | null };
  scaling: (EndToEndResult & { msPerMemory: number })[];
  vectorScaling: VectorScalingResult[];
  batchNight: BatchNightResult;
}

/** Phases go to stderr so a long run shows where it is; the table goes to stdout. */
const phase = (text: string) => process.stderr.write(`[bench] ${text}\n`);

/** Runs the benchmark on real Redis and the MongoDB-wire server, writes JSON, returns the report. */
export async function runBench(options: BenchOptions): Promise<{ report: BenchReport; file: string }> {
  const redis = options.redisUrl ? undefined : await startRedisServer();
  const mongo = options.mongodbUri ? undefined : await startMongoServer();
  let postgres: EmbeddedPostgres | undefined;
  const tag = Date.now().toString(36);
  const config = defaultConfig({
    redisUrl: options.redisUrl ?? redis!.url,
    mongodbUri: options.mongodbUri ?? mongo!.uri,
    mongodbDb: `bench-${tag}`,
    queuePrefix: `bench-${tag}`,
  });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  const emulator = await startLlmEmulator();
  try {
    phase(`seeding ${options.memories} memories for ${options.users} users`);
    const { due } = await seed(operations.models, {
      memories: options.memories,
      users: options.users,
      now: operations.now(),
    });
    phase('producer: memfade, then seed 003 loop');
    const producer = await benchmarkProducer(operations, due, options.memories, {
      db: mongo?.child.pid,
      redis: redis?.child.pid,
    });
    const dbCost: DbCostResult[] = [];
    for (const mode of ['sync', 'batch'] as const) {
      phase(`MongoDB commands of a ${mode} night of ${options.dbMemories} memories`);
      dbCost.push(
        await benchmarkDbCost(config, {
          mode,
          memories: options.dbMemories,
          users: options.dbUsers,
          memoryChars: options.dbMemoryChars,
          idleSampleMs: options.dbIdleSampleMs,
        }),
      );
    }
    const users = Math.max(1, Math.round(options.users / 10));
    // The ceiling and every row of the sweep run on a collection of one size, so the bound holds
    // each row against the ceiling of the same data (on the embedded server a write costs more in
    // a larger collection; on MongoDB the indexes make the size matter little).
    const maxConcurrency = Math.max(...options.concurrencies);
    const collectionSize = Math.max(
      maxConcurrency + options.ceilingMemories,
      ...options.concurrencies.map((c) => c + c * options.memoriesPerSlot),
    );
    phase(`end to end at L = 0 on ${options.ceilingMemories} memories`);
    const ceiling = await benchmarkEndToEnd(config, emulator, {
      latencyMs: 0,
      concurrency: maxConcurrency,
      memories: options.ceilingMemories,
      users,
      dbPid: mongo?.child.pid,
      collectionSize,
    });
    phase(`end to end at L = 0 with the offline compressor on ${options.ceilingMemories} memories`);
    const ceilingOffline = await benchmarkEndToEnd(config, emulator, {
      latencyMs: 0,
      concurrency: maxConcurrency,
      memories: options.ceilingMemories,
      users,
      dbPid: mongo?.child.pid,
      collectionSize,
      provider: 'offline',
    });
    const sweep: SweepResult[] = [];
    for (const concurrency of options.concurrencies) {
      const memories = concurrency * options.memoriesPerSlot;
      phase(`end to end at L = ${options.latencyMs} ms, C = ${concurrency}, ${memories} memories`);
      const result = await benchmarkEndToEnd(config, emulator, {
        latencyMs: options.latencyMs,
        concurrency,
        memories,
        users,
        dbPid: mongo?.child.pid,
        collectionSize,
      });
      const bound = Math.min(concurrency / (options.latencyMs / 1000), ceiling.perSecond);
      sweep.push({
        ...result,
        bound,
        efficiency: result.perSecond / bound,
        steadyEfficiency: result.steadyPerSecond / bound,
      });
    }
    const floorConcurrency = atC64(sweep)?.concurrency ?? 64;
    phase(`worker CPU floor: ${options.floorCalls} calls of each library at C = ${floorConcurrency}`);
    const floor = await benchmarkFloor(config, emulator, {
      concurrency: floorConcurrency,
      calls: options.floorCalls,
    });
    phase(`seed 003 sequential loop on ${options.sequentialMemories} memories`);
    const sequentialRun = await benchmarkSequential(config, emulator, {
      latencyMs: options.latencyMs,
      memories: options.sequentialMemories,
      users,
    });
    const c64 = atC64(sweep);
    const sequential = {
      ...sequentialRun,
      speedupAtC64: c64 ? c64.perSecond / sequentialRun.perSecond : null,
    };
    const scaling = [];
    for (const memories of options.scalingSizes) {
      phase(`scaling at L = 0: ${memories} memories`);
      const result = await benchmarkEndToEnd(config, emulator, {
        latencyMs: 0,
        concurrency: maxConcurrency,
        memories,
        users,
        dbPid: mongo?.child.pid,
      });
      scaling.push({ ...result, msPerMemory: (result.seconds * 1000) / memories });
    }
    const stores = options.vectorStores ?? VECTOR_BENCH_STORES;
    phase(`vector store scaling (${stores.join(', ')}): ${options.vectorScalingSizes.join(', ')} records`);
    if (stores.includes('pgvector') && !options.pgvectorUrl) postgres = await startPgliteServer();
    const vectorScaling = await benchmarkVectorScaling({
      stores,
      sizes: options.vectorScalingSizes,
      batchSize: config.vectorSync.batchSize,
      dimensions: config.embedder.dimensions,
      servers: { pgvectorUrl: options.pgvectorUrl ?? postgres?.url, mongoDb: operations.mongo.db },
    });
    phase(`batch night: ${options.batchMemories} memories through ${options.batchWorkers} workers`);
    const batchNight = await benchmarkBatchNight(config, {
      memories: options.batchMemories,
      users: options.batchUsers,
      workers: options.batchWorkers,
      dbPid: mongo?.child.pid,
      idleSampleMs: options.batchIdleSampleMs,
      model: options.batchModel,
    });
    const report: BenchReport = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      producer,
      dbCost,
      endToEnd: { ceiling, ceilingOffline, sweep, floor },
      sequential,
      scaling,
      vectorScaling,
      batchNight,
    };
    await mkdir(options.resultsDir, { recursive: true });
    const stem = join(options.resultsDir, report.date.replace(/[:.]/g, '-'));
    const file = `${stem}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(`${stem}-throughput.svg`, throughputChart(sweep, options.latencyMs));
    return { report, file };
  } finally {
    await emulator.close();
    await operations.close();
    await Promise.all([redis?.stop(), mongo?.stop(), postgres?.stop()]);
  }
}

/** The sweep's row the issue's targets name (C = 64), or its last when the sweep has none. */
const atC64 = (sweep: SweepResult[]) => sweep.find((s) => s.concurrency === 64) ?? sweep.at(-1);
const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;
const dbCpu = (r: EndToEndResult) => r.dbCpuMsPerMemory?.toFixed(2) ?? '-';
const dbBusy = (r: EndToEndResult) => (r.dbBusyShare === null ? '-' : pct(r.dbBusyShare));
/** An L = 0 run in the sweep's shape: it is the bound, not measured against one. */
const ceilingRow = (r: EndToEndResult): SweepResult => ({
  ...r,
  bound: Number.NaN,
  efficiency: Number.NaN,
  steadyEfficiency: Number.NaN,
});
const cpuSplit = (ms: Record<string, number>) =>
  ['producer', 'db', 'redis'].map((name) => ms[name]?.toFixed(0) ?? '-').join(' / ');

export function markdown(report: BenchReport): string {
  const p = report.producer;
  const f = (n: number) => n.toFixed(1);
  return [
    `### Producer: ${p.memories} memories, ${p.due} due`,
    '',
    '| producer | seconds | due memories/s | jobs enqueued | CPU ms per 1000: producer / DB / Redis |',
    '| --- | --- | --- | --- | --- |',
    `| memfade (streaming scan + addBulk) | ${f(p.optimized.seconds)} | ${f(p.optimized.perSecond)} | ${p.optimized.enqueued} | ${cpuSplit(p.optimized.cpuMsPer1000)} |`,
    `| seed 003 loop (per user, add one by one) | ${f(p.naive.seconds)} | ${f(p.naive.perSecond)} | ${p.naive.enqueued} | ${cpuSplit(p.naive.cpuMsPer1000)} |`,
    `| speedup | ${f(p.speedup)}x | | | |`,
    '',
    dbCostTable(report.dbCost),
    '',
    `### End to end (worker process after a warm-up run, Anthropic SDK against the emulator)`,
    '',
    `Every run but the scaling ones on a collection of ${report.endToEnd.ceiling.collectionSize} memories (the run's due ones, the rest due for nothing).`,
    '',
    '| L (ms) | C | model client | memories | model calls/memory | memories/s (run) | memories/s (steady) | bound | efficiency (run / steady) | worker CPU ms/memory (kernel) | DB CPU ms/memory | DB busy | peak RSS MB | Redis B/job | p50 s | p95 s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...[
      ceilingRow(report.endToEnd.ceiling),
      ceilingRow(report.endToEnd.ceilingOffline),
      ...report.endToEnd.sweep,
    ].map(
      (r) =>
        `| ${r.latencyMs} | ${r.concurrency} | ${r.provider === 'offline' ? 'none (offline)' : 'Anthropic SDK'} | ${r.memories} | ${r.modelCallsPerMemory.toFixed(2)} | ${f(r.perSecond)} | ${f(r.steadyPerSecond)} | ${Number.isNaN(r.bound) ? 'ceiling' : f(r.bound)} | ${Number.isNaN(r.efficiency) ? '-' : `${pct(r.efficiency)} / ${pct(r.steadyEfficiency)}`} | ${r.cpuMsPerMemory.toFixed(2)} (${r.systemCpuMsPerMemory.toFixed(2)}) | ${dbCpu(r)} | ${dbBusy(r)} | ${f(r.peakRssMb)} | ${r.redisBytesPerJob.toFixed(0)} | ${r.jobSecondsP50.toFixed(3)} | ${r.jobSecondsP95.toFixed(3)} |`,
    ),
    '',
    threadSplit(report.endToEnd),
    '',
    `Worker CPU outside the model client at L = 0: ${report.endToEnd.ceilingOffline.cpuMsPerMemory.toFixed(2)} ms per memory (offline compressor included); the Anthropic SDK and its HTTP client add ${(report.endToEnd.ceiling.cpuMsPerMemory - report.endToEnd.ceilingOffline.cpuMsPerMemory).toFixed(2)} ms.`,
    '',
    floorTable(report.endToEnd),
    '',
    `### Seed 003's sequential loop at L = ${report.sequential.latencyMs} ms`,
    '',
    `${report.sequential.memories} memories in ${f(report.sequential.seconds)} s: ${report.sequential.perSecond.toFixed(2)}/s; the queue at C = 64 is ${report.sequential.speedupAtC64?.toFixed(0) ?? '-'}x faster.`,
    '',
    '### Scaling at L = 0',
    '',
    '| memories | seconds | ms per memory | worker CPU ms/memory | DB CPU ms/memory | DB busy | Redis B/job |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...report.scaling.map(
      (r) =>
        `| ${r.memories} | ${f(r.seconds)} | ${r.msPerMemory.toFixed(2)} | ${r.cpuMsPerMemory.toFixed(2)} | ${dbCpu(r)} | ${dbBusy(r)} | ${r.redisBytesPerJob.toFixed(0)} |`,
    ),
    '',
    vectorScalingTable(report.vectorScaling),
    '',
    batchNightTable(report.batchNight),
  ].join('\n');
}

/** Where the worker's CPU goes, by thread, for the L = 0 runs and the sweep's C = 64 (or last) row. */
function threadSplit(e2e: BenchReport['endToEnd']): string {
  const c64 = atC64(e2e.sweep);
  const rows = [e2e.ceiling, e2e.ceilingOffline, ...(c64 ? [c64] : [])];
  return [
    'Worker CPU by thread, ms per memory:',
    '',
    '| L (ms) | C | model client | main (JavaScript) | V8 helpers (GC, compiler) | LanceDB | other | process |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => {
      const t = r.cpuMsPerMemoryByThread;
      const client = r.provider === 'offline' ? 'none (offline)' : 'Anthropic SDK';
      return `| ${r.latencyMs} | ${r.concurrency} | ${client} | ${[t.main, t.v8, t.lancedb, t.other, r.cpuMsPerMemory].map((v) => v.toFixed(2)).join(' | ')} |`;
    }),
  ].join('\n');
}

/** The worker's CPU floor beside what the worker spent at the same concurrency and L. */
function floorTable(e2e: BenchReport['endToEnd']): string {
  const floor = e2e.floor;
  const measured = e2e.sweep.find((s) => s.concurrency === floor.concurrency);
  const ms = (n: number) => n.toFixed(2);
  return [
    `Worker CPU floor at C = ${floor.concurrency}: each library alone in a process of its own, ms per call:`,
    '',
    '| MongoDB round trip (a job makes 3) | model call (SDK, prompt, validation) | BullMQ job (empty) | floor per memory | worker CPU ms/memory at L > 0 | above the floor |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${ms(floor.mongoRoundTripMs)} | ${ms(floor.modelCallMs)} | ${ms(floor.queueJobMs)} | ${ms(floor.perMemoryMs)} | ${measured ? ms(measured.cpuMsPerMemory) : '-'} | ${measured ? ms(measured.cpuMsPerMemory - floor.perMemoryMs) : '-'} |`,
  ].join('\n');
}

/** ms per record, whole phase and its last 10% of batches (where a cost growing with the table shows). */
const perRecord = (p: VectorPhaseResult) =>
  `${p.msPerRecord.toFixed(3)} (${p.lastTenthMsPerRecord.toFixed(3)})`;

function vectorScalingTable(results: VectorScalingResult[]): string {
  const lance = (value: number | undefined, digits = 0) =>
    value === undefined ? '-' : value.toFixed(digits);
  return [
    `### Vector store scaling (each store alone, batches of ${results[0]?.batchSize ?? '-'})`,
    '',
    '| store | records | insert ms/record (last 10%) | update ms/record (last 10%) | fragments after insert / update | versions | compactions | MB on disk |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.size} | ${perRecord(r.insert)} | ${perRecord(r.update)} | ${lance(r.insert.fragments)} / ${lance(r.update.fragments)} | ${lance(r.update.versions)} | ${lance(r.compactions)} | ${lance(r.update.diskMb)} |`,
    ),
  ].join('\n');
}
