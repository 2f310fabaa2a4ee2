import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configFromEnv,
  createServices,
  defaultConfig,
  enqueueRun,
  envSchema,
  type MemfadeConfig,
  openOperations,
  startWorkerRole,
} from '@memfade/app';
import { createLogger, parseEnv, unsetEmpty } from '@memfade/runtime';
import { startLlmEmulator, until } from '@memfade/testing';
import { CommandCounter, type CommandCounts, perUnit, withCommandMonitoring } from './command-count.js';
import { seed } from './dataset.js';
import { outboxDrained, workerSettings } from './end-to-end.js';

export type DbCostMode = 'sync' | 'batch';

export interface DbCostOptions {
  mode: DbCostMode;
  memories: number;
  users: number;
  /** Each memory's conversation at least this many characters long (dataset.ts conversationTurns). */
  memoryChars?: number;
  /** dueForV1 (default): a night of V1 stages; dueForV2: raw memories due for both stages. */
  ages?: 'dueForV1' | 'dueForV2';
  /** How long the idle worker's commands are counted before the night (its timers), ms. */
  idleSampleMs?: number;
}

/**
 * A night's MongoDB commands, counted by the driver's command monitoring in the process that sends
 * them (see benchmarkDbCost). Totals, not per memory: perMemory() divides.
 */
export interface DbCostResult {
  mode: DbCostMode;
  memories: number;
  users: number;
  /** The memories' conversations were at least this long (0: the bench's own). */
  memoryChars: number;
  ages: 'dueForV1' | 'dueForV2';
  /** The nightly-run job alone (the producer: due scan, holds, enqueue or batch requests, its books). */
  producer: CommandCounts;
  /**
   * Everything after the producer until the run finished and the vector outbox drained: compress
   * jobs (sync) or submit and poll jobs (batch), the run tracker, the outbox drain, the timers.
   */
  night: CommandCounts;
  /** From the producer's end to the outbox drained. */
  nightSeconds: number;
  /**
   * The idle worker's commands per second, by kind (its timers: the run watchdog every 2 s). The
   * per-memory figures leave those kinds out: they cost by the night's length, not by its memories.
   */
  idlePerSecond: CommandCounts;
}

const POLL_MS = 50;

/**
 * One night of `memories` due memories through memfade's worker role run in this process (the
 * code the worker app runs: createServices and startWorkerRole, with the worker's settings), its
 * MongoDB client opened with command monitoring on, so every command it sends is counted where it
 * is issued. The bench's own reads (waiting for the run) go through a connection of their own and
 * are not counted. The producer runs first with the compress and batch queues paused, so its
 * commands are told apart from the jobs'; then the queues resume and the night runs to its end.
 */
export async function benchmarkDbCost(base: MemfadeConfig, options: DbCostOptions): Promise<DbCostResult> {
  const tag = `db-${options.mode}-${Date.now().toString(36)}`;
  const config = defaultConfig({ ...base, mongodbDb: tag, queuePrefix: tag });
  const logger = createLogger({ level: 'warn' });
  const operations = await openOperations(config, { logger });
  const emulator = await startLlmEmulator();
  const batch = { MODEL_MODE: 'batch', BATCH_POLL_MS: '100' };
  const settings = workerSettings(config, emulator, {
    tag,
    provider: 'anthropic',
    concurrency: 16,
    // The outbox is drained after the night's stage writes as in production (notify), but its
    // timer is off: every interval it also sweeps one page of the vector store for erasure, a cost
    // by the night's length and the store's size, not by its memories (docs/sizing.md gives it).
    env: { VECTOR_SYNC_INTERVAL_MS: '0', ...(options.mode === 'batch' ? batch : {}) },
  });
  const workerConfig = configFromEnv(
    parseEnv(envSchema, unsetEmpty({ ...settings, MONGODB_URI: withCommandMonitoring(config.mongodbUri!) })),
  );
  const services = await createServices(workerConfig, { logger });
  const counter = new CommandCounter(services.mongo);
  const workers = startWorkerRole(services);
  const alive = async () => undefined;
  try {
    counter.take();
    const idleMs = options.idleSampleMs ?? 10_000;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idle = counter.take();
    await seed(operations.models, {
      memories: options.memories,
      users: options.users,
      now: new Date(),
      ages: options.ages ?? 'dueForV1',
      memoryChars: options.memoryChars,
    });
    await operations.queues.compress.pause();
    await operations.queues.batch.pause();
    const runId = await enqueueRun(operations, { trigger: 'manual' });
    const reached = (field: 'producerDoneAt' | 'finishedAt') => async () =>
      Boolean((await operations.runs.get(runId))?.[field]);
    await until(reached('producerDoneAt'), Number.POSITIVE_INFINITY, () => 'producer done', POLL_MS);
    const producer = counter.take();
    const started = performance.now();
    await operations.queues.compress.resume();
    await operations.queues.batch.resume();
    await until(reached('finishedAt'), Number.POSITIVE_INFINITY, () => `run ${runId} finished`, POLL_MS);
    if (workerConfig.vectorSync.enabled) await outboxDrained(operations, alive);
    const nightSeconds = (performance.now() - started) / 1000;
    const night = counter.take();
    return {
      mode: options.mode,
      memories: options.memories,
      users: options.users,
      memoryChars: options.memoryChars ?? 0,
      ages: options.ages ?? 'dueForV1',
      producer,
      night,
      nightSeconds,
      idlePerSecond: perUnit(idle, idleMs / 1000),
    };
  } finally {
    await workers.close();
    counter.stop();
    await services.close();
    await emulator.close();
    await operations.close();
    await rm(join(tmpdir(), `memfade-bench-${tag}`), { recursive: true, force: true });
  }
}

/**
 * Per memory: the producer, the night, and both, without the commands of the kinds the idle worker
 * sends (its timers: the run watchdog), counted as they came, which a night's length sets, not its
 * memories (on the slow test server, a night of minutes).
 */
export function perMemory(r: DbCostResult) {
  const n = r.memories;
  const timers = new Set(Object.keys(r.idlePerSecond.byKind));
  const timed = (c: CommandCounts) =>
    Object.entries(c.byKind).reduce((sum, [kind, cost]) => sum + (timers.has(kind) ? cost.commands : 0), 0);
  const idle = timed(r.producer) + timed(r.night);
  const producer = (r.producer.commands - timed(r.producer)) / n;
  const night = (r.night.commands - timed(r.night)) / n;
  return { producer, night, total: producer + night, idle: idle / n, timers: [...timers] };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** The database's cost per memory, by mode and phase, and the kinds of command behind it. */
export function dbCostTable(results: DbCostResult[]): string {
  const lines = [
    '### MongoDB commands per memory (driver command monitoring, in the worker role)',
    '',
    '| mode | memories (characters) | phase | commands | documents returned | documents written | KB sent | KB received |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of results) {
    const n = r.memories;
    const row = (phase: string, c: CommandCounts) =>
      `| ${r.mode} | ${n} ${r.ages} (${r.memoryChars || 'bench'}) | ${phase} | ${fmt(c.commands / n)} | ${fmt(c.returned / n)} | ${fmt(c.written / n)} | ${fmt(c.bytesSent / n / 1024)} | ${fmt(c.bytesReceived / n / 1024)} |`;
    const p = perMemory(r);
    lines.push(row('producer', r.producer), row('jobs, tracker, outbox', r.night));
    lines.push(
      `| ${r.mode} | ${n} | end to end, without the idle worker's timers (${fmt(p.idle)}) | **${fmt(p.total)}** | | | | |`,
    );
  }
  for (const r of results) {
    lines.push('', `${r.mode} mode, by command, collection and filter, per memory:`, '');
    lines.push('| command | producer | jobs, tracker, outbox | documents returned | KB sent | KB received |');
    lines.push('| --- | --- | --- | --- | --- | --- |');
    const kinds = new Set([...Object.keys(r.producer.byKind), ...Object.keys(r.night.byKind)]);
    const rows = [...kinds].map((kind) => {
      const p = r.producer.byKind[kind];
      const j = r.night.byKind[kind];
      const total = (p?.commands ?? 0) + (j?.commands ?? 0);
      return { kind, p, j, total };
    });
    rows.sort((a, b) => b.total - a.total);
    for (const { kind, p, j } of rows) {
      const returned = (p?.returned ?? 0) + (j?.returned ?? 0);
      const sent = (p?.bytesSent ?? 0) + (j?.bytesSent ?? 0);
      const received = (p?.bytesReceived ?? 0) + (j?.bytesReceived ?? 0);
      const kb = (bytes: number) => fmt(bytes / r.memories / 1024);
      lines.push(
        `| \`${kind}\` | ${fmt((p?.commands ?? 0) / r.memories, 3)} | ${fmt((j?.commands ?? 0) / r.memories, 3)} | ${fmt(returned / r.memories)} | ${kb(sent)} | ${kb(received)} |`,
      );
    }
  }
  return lines.join('\n');
}
