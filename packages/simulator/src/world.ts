import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createServices, defaultConfig, loadMapping, type Services } from '@memfade/app';
import {
  createLogger,
  type EmbeddedMongo,
  type EmbeddedRedis,
  startMongoServer,
  startRedisServer,
} from '@memfade/runtime';
import { childEnv, type LlmEmulator, startLlmEmulator, startTcpProxy, type TcpProxy } from '@memfade/testing';
import type { Product } from './product.js';
import type { NightSettings } from './schedule.js';

const workerMain = fileURLToPath(new URL('../../../apps/worker/dist/main.js', import.meta.url));
const cliMain = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));

/** $ per million tokens: the test model's, and the list prices of the real ones a night may use (REAL_MODELS). */
const PRICES = {
  emulated: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
};

/** The servers every seed shares: one Redis, one MongoDB-wire server (a database and a queue prefix per seed). */
export interface Servers {
  redisUrl: string;
  mongoUri: string;
  close(): Promise<void>;
}

export async function startServers(): Promise<Servers> {
  const [redis, mongo]: [EmbeddedRedis, EmbeddedMongo] = await Promise.all([
    startRedisServer(),
    startMongoServer(),
  ]);
  return {
    redisUrl: redis.url,
    mongoUri: mongo.uri,
    close: async () => {
      await Promise.all([redis.stop(), mongo.stop()]);
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One seed's world: its database, queue prefix, vector folder and emulator; the worker processes
 * (the built binary, killed with SIGKILL) and the CLI; and services of the simulator's own to
 * seed the product and read what happened.
 */
export class World {
  readonly workers: (ChildProcess | undefined)[] = [];
  /**
   * Workers that exited of themselves (not killed or stopped here), each with its own last output,
   * started again as a container's restart policy does.
   */
  readonly exits: { slot: number; code: number | null; signal: string | null; output: string }[] = [];
  private outputs: string[] = [];
  /** The children the simulator is killing or stopping: their exit is no worker's own. */
  private readonly ending = new Set<ChildProcess>();
  private closing = false;

  private constructor(
    readonly seed: number,
    readonly emulator: LlmEmulator,
    readonly services: Services,
    private readonly env: Record<string, string>,
    private readonly dir: string,
    private readonly logDir?: string,
    /** Between the workers and MongoDB when the night cuts it (the CLI and the checker go direct). */
    readonly mongoProxy?: TcpProxy,
    /** Between the workers and Redis when the night cuts it. */
    readonly redisProxy?: TcpProxy,
    /** The time zones the workers and the CLI run in (Product.timeZones); else the machine's. */
    private readonly timeZones?: { workers: string; cli: string },
  ) {}

  static async open(
    servers: Servers,
    seed: number,
    product: Product,
    settings: NightSettings,
    options: { logDir?: string | undefined; cut?: boolean; redisCut?: boolean } = {},
  ): Promise<World> {
    const { logDir } = options;
    const emulator = await startLlmEmulator({ batchProcessingMs: 300 });
    const dir = await mkdtemp(join(tmpdir(), `memfade-sim-${seed}-`));
    const env: Record<string, string> = {
      REDIS_URL: servers.redisUrl,
      MONGODB_URI: servers.mongoUri,
      MONGODB_DB: `sim-${seed}-${Date.now()}`,
      MEMFADE_QUEUE_PREFIX: `sim${seed}x${Date.now()}`,
      LANCEDB_DIR: join(dir, 'lancedb'),
      MEMFADE_PROVIDER: settings.provider,
      MEMFADE_MODEL: settings.model ?? 'emulated',
      MODEL_MODE: settings.mode,
      BATCH_MIN_CALLS: '1',
      BATCH_POLL_MS: '200',
      MODEL_TIMEOUT_MS: '3000',
      WORKER_CONCURRENCY: '4',
      JOB_LOCK_MS: '2000',
      JOB_RETRY_BACKOFF_MS: '300',
      SCHEDULER_ENABLED: 'false',
      VECTOR_SYNC_INTERVAL_MS: '300',
      SHUTDOWN_GRACE_MS: '3000',
      // `--logs DIR`: every worker's whole log, at info, kept there (a seed to debug).
      LOG_LEVEL: logDir ? 'info' : 'warn',
      MEMFADE_PRICES: JSON.stringify(PRICES),
      ...(settings.budgetTokens > 0 && { NIGHT_BUDGET_TOKENS: String(settings.budgetTokens) }),
      // Seeds from before these levers existed have neither (buildNight leaves them at 1 and 0).
      ...(settings.perRequest > 1 && { MEMORIES_PER_REQUEST: String(settings.perRequest) }),
      ...(settings.userBudgetUsd > 0 && { USER_NIGHT_BUDGET_USD: String(settings.userBudgetUsd) }),
      ...(settings.maxResumes && { BATCH_MAX_RESUMES: String(settings.maxResumes) }),
      ...(settings.provider === 'anthropic'
        ? { ANTHROPIC_API_KEY: 'sk-ant-sim', ANTHROPIC_BASE_URL: emulator.url }
        : { OPENAI_API_KEY: 'sk-sim', OPENAI_BASE_URL: `${emulator.url}/v1` }),
    };
    if (product.mapping) {
      env.MEMFADE_MAPPING = join(dir, 'mapping.json');
      await writeFile(env.MEMFADE_MAPPING, JSON.stringify(product.mapping));
    }
    const config = defaultConfig({
      redisUrl: env.REDIS_URL,
      mongodbUri: env.MONGODB_URI,
      mongodbDb: env.MONGODB_DB,
      queuePrefix: env.MEMFADE_QUEUE_PREFIX,
      vector: { ...defaultConfig().vector, dir: env.LANCEDB_DIR! },
      mapping: loadMapping(env.MEMFADE_MAPPING),
      logLevel: 'silent',
    });
    const services = await createServices(config, { logger: createLogger({ level: 'silent' }) });
    const mongoProxy = options.cut
      ? await startTcpProxy({ port: Number(new URL(servers.mongoUri).port) })
      : undefined;
    const redisProxy = options.redisCut
      ? await startTcpProxy({ port: Number(new URL(servers.redisUrl).port) })
      : undefined;
    return new World(seed, emulator, services, env, dir, logDir, mongoProxy, redisProxy, product.timeZones);
  }

  get config() {
    return this.services.config;
  }

  startWorker(slot: number): void {
    const env = { ...this.env };
    if (this.mongoProxy) {
      const uri = new URL(env.MONGODB_URI!);
      uri.port = String(this.mongoProxy.port);
      env.MONGODB_URI = uri.toString();
    }
    if (this.redisProxy) {
      const url = new URL(env.REDIS_URL!);
      url.port = String(this.redisProxy.port);
      env.REDIS_URL = url.toString();
    }
    const tz = this.timeZones?.workers;
    const child = spawn(process.execPath, [workerMain], {
      env: childEnv({ ...env, ...(tz && { TZ: tz }) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { logDir } = this;
    let own = '';
    const keep = (chunk: Buffer) => {
      own = (own + chunk.toString()).slice(-600);
      this.outputs[slot] = ((this.outputs[slot] ?? '') + chunk.toString()).slice(-6_000);
      if (logDir) appendFileSync(join(logDir, `seed-${this.seed}-worker-${slot}.log`), chunk);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // A worker that exits of itself (MongoDB refusing its start-up connection: docs/cli.md "Exit
    // codes") is started again half a second later, as `restart: unless-stopped` does
    // (docs/operations.md); the checker reads why it exited.
    child.once('exit', (code, signal) => {
      if (this.ending.delete(child) || this.closing || this.workers[slot] !== child) return;
      this.exits.push({ slot, code, signal, output: own });
      this.workers[slot] = undefined;
      setTimeout(() => {
        if (!this.closing && !this.workers[slot]) this.startWorker(slot);
      }, 500);
    });
    this.workers[slot] = child;
  }

  /** SIGKILL, as a crashed machine: no shutdown, no lock released. */
  async kill(slot: number): Promise<void> {
    const child = this.workers[slot];
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    this.ending.add(child);
    child.kill('SIGKILL');
    await exited;
    this.workers[slot] = undefined;
  }

  /** SIGSTOP for `forMs`, then SIGCONT: a worker that stops running without dying. False if none ran in the slot. */
  async freeze(slot: number, forMs: number): Promise<boolean> {
    const child = this.workers[slot];
    if (!child || child.exitCode !== null || !child.kill('SIGSTOP')) return false;
    await sleep(forMs);
    // Killed meanwhile: a signal to a dead process is refused, harmlessly.
    child.kill('SIGCONT');
    return true;
  }

  /**
   * SIGTERM, as a deploy or a scale-down: the worker shuts down in order. Returns how it ended: its
   * exit code, or the signal where it died of it (stopped while loading, before its handler was set:
   * nothing was open; an orchestrator reads that as 143 too).
   */
  async stop(slot: number): Promise<{ code: number | null; signal: string | null }> {
    const child = this.workers[slot]!;
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    this.ending.add(child);
    child.kill('SIGTERM');
    const end = await exited;
    this.workers[slot] = undefined;
    return end;
  }

  /** Every Redis key of this world's product (its queue prefix) deleted: Redis back without its data. */
  async loseRedisData(): Promise<void> {
    const { redis } = this.services;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.config.queuePrefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  /** Runs the built `memfade` CLI; never throws on a non-zero exit (the code is checked). */
  cli(...args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [cliMain, ...args],
        {
          env: childEnv({ ...this.env, ...(this.timeZones && { TZ: this.timeZones.cli }) }),
          timeout: 900_000,
          maxBuffer: 1 << 26,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 99) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  tail(): string {
    return this.outputs.map((out, i) => `--- worker ${i}\n${(out ?? '').slice(-2_000)}`).join('\n');
  }

  async close(): Promise<void> {
    this.closing = true;
    for (let slot = 0; slot < this.workers.length; slot++) await this.kill(slot);
    await this.services.mongo.db?.dropDatabase().catch(() => undefined);
    await this.services.close();
    await this.emulator.close();
    await this.mongoProxy?.close();
    await this.redisProxy?.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
