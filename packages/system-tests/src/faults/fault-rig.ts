import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { enqueueRun } from '@memfade/app';
import { type Memory, stageDueAt } from '@memfade/core';
import type { RunRecord } from '@memfade/db';
import { insertMemories } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { childEnv, type LlmEmulator, startLlmEmulator, until, WORKER_WAIT_MS } from '@memfade/testing';
import { type Harness, startHarness } from '../harness.js';
import * as checks from './fault-checks.js';

/**
 * Retries after 1 s, 2 s, 4 s, 8 s instead of 5 s and up: still longer in all than the rows'
 * outages (MongoDB cut off 3 s), so a job outlives one instead of failing for good.
 */
const RETRY_BACKOFF_MS = 1_000;

const workerMain = fileURLToPath(new URL('../../../../apps/worker/dist/main.js', import.meta.url));
const cliMain = fileURLToPath(new URL('../../../../apps/cli/dist/main.js', import.meta.url));

export interface RigOptions {
  /** The Redis both the test and the workers use (default: the test run's). */
  redisUrl?: string;
  /** How the workers reach MongoDB, when not directly (e.g. through a proxy that can be cut). */
  workerMongoUri?: string;
  /** Embeddings over HTTP from the emulator instead of the offline hashing embedder. */
  remoteEmbedder?: boolean;
}

const REMOTE_EMBEDDER = {
  MEMFADE_EMBEDDER: 'openai',
  EMBEDDING_MODEL: 'emulated-embedding',
  EMBEDDING_API_KEY: 'sk-embed-fault-suite',
  EMBEDDING_DIMENSIONS: '256',
};

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The last of what the process wrote (its pino log and any crash): shown when a scenario fails. */
  output(): string;
  /** How many of its log lines carry this message. */
  logged(message: string): number;
}

/**
 * A few hundred demo memories (Chinese and English, 0-10 days old) in a fresh database, the LLM
 * emulator, and worker processes started from the built binary: the fault suite's stage. The
 * test process keeps its own connections (the harness) to seed, trigger and audit; the workers
 * may reach Redis and MongoDB by other addresses (a restartable Redis, a cuttable proxy).
 */
export class FaultRig {
  readonly workers: WorkerProcess[] = [];
  private originals = new Map<string, string>();
  /** Memories the product deleted, as they were when deleted (their history is final then). */
  private deleted = new Map<string, Memory>();
  /** Memories `memfade forget` took back to raw: the audit expects them raw, with no vector record. */
  private forgotten = new Set<string>();
  /** The night the rig seeds for and runs. */
  asOf = new Date();

  private constructor(
    readonly harness: Harness,
    readonly emulator: LlmEmulator,
    private readonly options: RigOptions,
  ) {}

  static async start(options: RigOptions = {}): Promise<FaultRig> {
    const emulator = await startLlmEmulator();
    const embedder = options.remoteEmbedder
      ? {
          embedder: 'openai' as const,
          model: REMOTE_EMBEDDER.EMBEDDING_MODEL,
          apiKey: REMOTE_EMBEDDER.EMBEDDING_API_KEY,
          baseURL: `${emulator.url}/v1`,
          dimensions: 256,
          timeoutMs: 3_000,
        }
      : undefined;
    const harness = await startHarness({
      now: new Date(),
      config: {
        ...(options.redisUrl && { redisUrl: options.redisUrl }),
        ...(embedder && { embedder }),
        retryBackoffMs: RETRY_BACKOFF_MS,
      },
    });
    return new FaultRig(harness, emulator, options);
  }

  get services() {
    return this.harness.services;
  }

  /**
   * Inserts `users` × 11 memories and remembers every original byte for the audit. `distinct`:
   * every memory's text is made its own (demo conversations repeat across users), so that money()
   * tells two requests of one memory from requests of two memories that read alike.
   */
  async seed(users: number, options: { distinct?: boolean } = {}): Promise<void> {
    this.asOf = new Date();
    const data = generateDemoData({ now: this.asOf, users });
    if (options.distinct) {
      for (const memory of data.memories as { memoryId: string; content: { raw: { text: string }[] } }[]) {
        const last = memory.content.raw.at(-1)!;
        // Greetings stay too short for a model call: only what goes to the model is marked.
        if (memory.content.raw.length > 2) last.text = `${last.text} (${memory.memoryId})`;
      }
    }
    await insertMemories(this.services.models, data.memories, data.roleCards);
    const docs = (await this.services.models.memories.find({}).lean()) as unknown as Memory[];
    for (const doc of docs) this.originals.set(doc.memoryId, JSON.stringify(doc.content));
  }

  /**
   * The product rewrites a memory's conversation, as a user's edit or redaction would: only if it
   * is still at the stage and revision given (so the test knows whether the edit came before the
   * memory's last stage write). The audit then expects the new content as the original.
   */
  async productEdit(
    memory: Pick<Memory, 'memoryId' | 'meta' | 'rev'>,
    raw: Memory['content']['raw'],
  ): Promise<boolean> {
    const { modifiedCount } = await this.services.models.memories.collection.updateOne(
      {
        memoryId: memory.memoryId,
        'meta.compressionStage': memory.meta.compressionStage,
        rev: memory.rev,
      },
      { $set: { 'content.raw': raw } },
    );
    const edited = modifiedCount === 1;
    if (edited) {
      const doc = await this.services.models.memories.collection.findOne({ memoryId: memory.memoryId });
      this.originals.set(memory.memoryId, JSON.stringify(doc?.content));
    }
    return edited;
  }

  /**
   * The product deletes a memory, as a user's "delete this conversation" would. The audit then
   * expects no vector record of it, does not count it as lost, and still counts the run's job for it.
   */
  async productDelete(memoryId: string): Promise<boolean> {
    const memories = this.services.models.memories.collection;
    // Read, then delete only that revision (the wire server refuses findOneAndDelete): the document
    // kept is exactly the one deleted.
    for (;;) {
      const doc = await memories.findOne({ memoryId });
      if (!doc) return false;
      const { deletedCount } = await memories.deleteOne({ memoryId, rev: doc.rev });
      if (deletedCount === 1) {
        this.deleted.set(memoryId, doc as unknown as Memory);
        break;
      }
    }
    this.originals.delete(memoryId);
    return true;
  }

  /**
   * `memfade forget --user` through the built CLI, as an operator would run it mid-night; the audit
   * then expects the user's memories raw, with no history and no vector record. Returns its --json.
   */
  async forgetUser(
    userId: string,
  ): Promise<{ receipt: { place: string; status: string; detail: string }[] }> {
    const ids = await this.services.models.memories.distinct('memoryId', { userId });
    for (const id of ids as string[]) this.forgotten.add(id);
    // Exit 1 when a place was left or failed: the receipt is printed all the same, for the test to read.
    const stdout = await this.cli('forget', '--user', userId, '--json').catch(
      (error: { stdout?: string; stderr?: string }) =>
        error.stdout || `{"receipt":[],"stderr":${JSON.stringify(error.stderr)}}`,
    );
    return JSON.parse(stdout);
  }

  /** Every place memfade could keep a copy of text, searched for each marker (fault-checks.ts). */
  leaks(markers: string[]): Promise<string[]> {
    return checks.leaks(this.harness, this.emulator, markers);
  }

  /** The ids of the memories productDelete removed. */
  deletedIds(): string[] {
    return [...this.deleted.keys()];
  }

  /** The environment a worker process (or the CLI) gets: the anthropic SDK against the emulator. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const { config } = this.harness;
    return childEnv({
      REDIS_URL: config.redisUrl,
      MONGODB_URI: this.options.workerMongoUri ?? config.mongodbUri,
      MONGODB_DB: config.mongodbDb,
      MEMFADE_QUEUE_PREFIX: config.queuePrefix,
      LANCEDB_DIR: config.vector.dir,
      MEMFADE_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-fault-suite',
      ANTHROPIC_BASE_URL: this.emulator.url,
      MEMFADE_MODEL: 'emulated',
      // Compress jobs, as most scenarios are written for; the batch scenarios pass MODEL_MODE=batch.
      MODEL_MODE: 'sync',
      MODEL_TIMEOUT_MS: '3000',
      WORKER_CONCURRENCY: '8',
      // A dead worker's jobs come back after seconds, not the production default of 30.
      JOB_LOCK_MS: '2000',
      JOB_RETRY_BACKOFF_MS: String(RETRY_BACKOFF_MS),
      SCHEDULER_ENABLED: 'false',
      VECTOR_SYNC_INTERVAL_MS: '500',
      SHUTDOWN_GRACE_MS: '5000',
      LOG_LEVEL: 'warn',
      ...(this.options.remoteEmbedder && {
        ...REMOTE_EMBEDDER,
        EMBEDDING_BASE_URL: `${this.emulator.url}/v1`,
      }),
      ...extra,
    });
  }

  startWorker(extra: Record<string, string> = {}): WorkerProcess {
    const child = spawn(process.execPath, [workerMain], {
      env: this.env(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const counts = new Map<string, number>();
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      for (const match of chunk.toString().matchAll(/"msg":"([^"]*)"/g)) {
        counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const worker = { child, exited, output: () => output, logged: (msg: string) => counts.get(msg) ?? 0 };
    this.workers.push(worker);
    return worker;
  }

  /** Runs the built `memfade` CLI with the workers' environment. */
  async cli(...args: string[]): Promise<string> {
    const run = promisify(execFile);
    return (await run(process.execPath, [cliMain, ...args], { env: this.env(), timeout: WORKER_WAIT_MS }))
      .stdout;
  }

  /** Triggers tonight's run from the test process, as `memfade run-now` would. */
  runNight(): Promise<string> {
    return enqueueRun(this.services, { trigger: 'manual', asOf: this.asOf });
  }

  /** How many memories are due tonight (V1, or V1 then V2): the requests of a batch night's round 0. */
  async dueCount(): Promise<number> {
    const docs = (await this.services.models.memories.find({}, { meta: 1 }).lean()) as unknown as Memory[];
    const { policy } = this.harness.config;
    return docs.filter((d) => stageDueAt(new Date(d.meta.createdAt), this.asOf, policy) !== 'raw').length;
  }

  /** Batch requests in a state so far, every round of every run (e.g. 'applied'). */
  batchRequests(state: string): Promise<number> {
    return this.services.models.batchRequests.countDocuments({ state });
  }

  /** Compress jobs that ended well so far (completed, whoever ran them). */
  async completedJobs(): Promise<number> {
    return this.services.queues.compress.getCompletedCount();
  }

  /** Waits until the workers have marked every run finished and emptied the vector outbox. */
  async settle(runIds: string[], timeoutMs = WORKER_WAIT_MS): Promise<RunRecord[]> {
    const runs = () => Promise.all(runIds.map((id) => this.services.runs.get(id)));
    const pending = () => this.services.models.memories.countDocuments({ 'vectorSync.pending': true });
    await until(
      async () => (await runs()).every((run) => run?.finishedAt) && (await pending()) === 0,
      timeoutMs,
      () => `runs ${runIds.join(', ')} not finished with an empty outbox; worker output:\n${this.tail()}`,
    );
    return (await runs()) as RunRecord[];
  }

  /** Checks every memory, its vector record and the runs' counts against the night (fault-checks.ts). */
  audit(runs: RunRecord[]): Promise<checks.Audit> {
    const { asOf, originals, deleted, forgotten } = this;
    return checks.audit(this.harness, { asOf, originals, deleted, forgotten }, runs);
  }

  /** What the provider was paid against what the runs counted (fault-checks.ts). */
  money(runs: RunRecord[]): checks.Money {
    return checks.money(this.emulator, runs);
  }

  /** The last lines every worker wrote, for failure messages. */
  tail(): string {
    return this.workers.map((w, i) => `--- worker ${i}\n${w.output().slice(-3000)}`).join('\n');
  }

  async close(): Promise<void> {
    for (const worker of this.workers) worker.child.kill('SIGKILL');
    await Promise.all(this.workers.map((w) => w.exited));
    await this.harness.close();
    await this.emulator.close();
  }
}
