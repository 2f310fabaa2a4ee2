import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectMongo, createModels, type Models } from '@memfade/db';
import { openQueues, producerConnection, vectorWriteLock } from '@memfade/queue';
import { childEnv, uniqueName, until, WORKER_WAIT_MS, workerMongoUri } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const workerMain = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));
const file = fileURLToPath(
  new URL('../../../../shared/data/memorybank/memory_bank_en.json', import.meta.url),
);
const run = promisify(execFile);

/** Days with a conversation per user: every one of them is years old, so due for V1 and V2. */
const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { history: Record<string, unknown[]> }>;
const memoriesOf = (name: string) =>
  Object.values(data[name]!.history).filter((day) => day.length > 0).length;
const total = Object.keys(data).reduce((sum, name) => sum + memoriesOf(name), 0);
const [alice, bob] = ['Emily', 'John Zhang'];
const userId = (name: string) => `mb-${name}`;

/**
 * What LanceDB's folder keeps besides the current version: older version manifests, deletion files
 * (rows hidden, not removed) and data files the current manifest does not name (older versions').
 * Looked at file by file rather than grepped for text: Lance compresses the string pages of a table
 * this size, so a grep for a memory's text finds nothing even where it is stored.
 */
async function lanceLeftovers(dir: string) {
  const table = join(dir, 'memories.lance');
  const files = async (sub: string) => readdir(join(table, sub)).catch(() => [] as string[]);
  const manifests = await files('_versions');
  const current = await readFile(join(table, '_versions', manifests.sort()[0]!));
  return {
    olderVersions: manifests.length - 1,
    deletionFiles: (await files('_deletions')).length,
    unreferencedData: (await files('data')).filter((name) => !current.includes(Buffer.from(name))),
  };
}

// Waits on the worker and the CLI end when what they wait for holds; their caps (WORKER_WAIT_MS)
// are for a loaded machine, and a test's timeout leaves room for two of them.
describe('operating memfade through the built binaries, on real services', {
  timeout: 2 * WORKER_WAIT_MS,
}, () => {
  const lanceDir = join(tmpdir(), uniqueName('memfade-lance'));
  const env = childEnv({
    REDIS_URL: inject('redisUrl'),
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: uniqueName('db'),
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    LANCEDB_DIR: lanceDir,
    SCHEDULER_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  });
  const memfade = async (...args: string[]) =>
    (await run(process.execPath, [cli, ...args], { env, timeout: WORKER_WAIT_MS })).stdout;
  const status = async () => JSON.parse(await memfade('status', '--json'));
  /** Memories the faithfulness gate left a stage short, the reason recorded on them. */
  const refused = async () => {
    const found = await db
      .collection('memories')
      .find({ 'compression.lastError.message': /faithfulness/ }, { projection: { memoryId: 1 } })
      .toArray();
    return found as unknown as { memoryId: string }[];
  };
  let worker: ChildProcess | undefined;
  // The waits read MongoDB and the queues directly: polling `memfade status` kept a process starting
  // (about a second of CPU each) for as long as a wait lasted. What the tests assert still comes
  // from the CLI.
  const redis = producerConnection(env.REDIS_URL!);
  const waitQueues = openQueues({ connection: redis, prefix: env.MEMFADE_QUEUE_PREFIX! });
  let db: Awaited<ReturnType<typeof connectMongo>>;
  let runs: Models['runs'];

  beforeAll(async () => {
    db = await connectMongo(env.MONGODB_URI!, { dbName: env.MONGODB_DB! });
    runs = createModels(db).runs;
    await memfade('import', file, '--format', 'memorybank', '--prefix', 'mb');
  }, WORKER_WAIT_MS);
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await waitQueues.close();
    await redis.quit();
    await db.close();
    await rm(lanceDir, { recursive: true, force: true });
  });

  it('dry-run prints what would be enqueued and enqueues nothing', async () => {
    const out = JSON.parse(
      await memfade('backfill', '--user', userId(alice), '--user', userId(bob), '--dry-run', '--json'),
    );
    // Every memory is raw and years old: each gets one job that takes it to V2.
    expect(out).toMatchObject({ dryRun: true, counts: { v1: 0, v2: memoriesOf(alice) + memoriesOf(bob) } });
    expect(out.first[0]).toMatch(/^mb-(Emily|John Zhang)-2023-\d\d-\d\d -> v2$/);
    expect((await status()).queues.compress).toMatchObject({ waiting: 0, completed: 0 });
  });

  it('a backfill of two users enqueues exactly their due memories', async () => {
    const { runId } = JSON.parse(
      await memfade('backfill', '--user', userId(alice), '--user', userId(bob), '--json'),
    );
    expect(runId).toMatch(/^backfill-/);
    // The run's producer is a job like any other: a worker process picks it up.
    worker = spawn(process.execPath, [workerMain], {
      env: { ...env, WORKER_CONCURRENCY: '1' },
      stdio: 'ignore',
    });
    await until(async () => Boolean((await runs.findOne({ runId }).lean())?.producerDoneAt), WORKER_WAIT_MS);
    const backfillRun = (await status()).runs.find((r: { runId: string }) => r.runId === runId);
    expect(backfillRun.counts).toMatchObject({
      selected: memoriesOf(alice) + memoriesOf(bob),
      enqueued: memoriesOf(alice) + memoriesOf(bob),
    });
  });

  it('a nightly run started while the backfill is running adds no duplicate job, and everything completes', async () => {
    await memfade('run-now');
    await until(async () => {
      const nightly = await waitQueues.nightly.getJobCounts('completed');
      const compress = await waitQueues.compress.getJobCounts('waiting', 'active', 'delayed');
      return nightly.completed === 2 && compress.waiting! + compress.active! + compress.delayed! === 0;
    }, WORKER_WAIT_MS);
    const { queues, stages } = await status();
    // The offline compressor's faithfulness gate (docs/design.md §11) may refuse a stage holding
    // words nobody said: the memory stays a stage short, its job failed, the reason recorded.
    const gate = await refused();
    expect(gate.length).toBeLessThanOrEqual(2);
    expect(queues.compress).toMatchObject({ completed: total - gate.length, failed: gate.length });
    expect(stages).toMatchObject({ v2: total - gate.length, other: 0 });
    expect(stages.raw + stages.v1).toBe(gate.length);
  });

  it('inspect shows all three stages of a V2 memory, and --json parses', async () => {
    const id = `${userId(alice)}-2023-04-27`;
    const out = await memfade('inspect', id);
    expect(out).toMatch(/^raw\s+\d+/m);
    expect(out).toMatch(/^V1\s+\d+\s+0\.\d+\s+offline-extractive-1/m);
    expect(out).toMatch(/^V2\s+\d+/m);
    expect(out).toMatch(/vector: v2, in sync/);
    const json = JSON.parse(await memfade('inspect', id, '--json'));
    expect(json.memory.compression.history.map((h: { stage: string }) => h.stage)).toEqual(['v1', 'v2']);
  });

  it('rollback makes the memory due again without losing the rolled-back result', async () => {
    const id = `${userId(alice)}-2023-04-27`;
    const before = JSON.parse(await memfade('inspect', id, '--json')).memory;
    expect(await memfade('rollback', id, '--to', 'v1')).toMatch(/v2 -> v1; it is due again/);
    const after = JSON.parse(await memfade('inspect', id, '--json')).memory;
    expect(after.meta.compressionStage).toBe('v1');
    expect(after.compression.v2).toBeUndefined();
    expect(after.compression.rollbacks[0].results.v2.coreMemory).toBe(before.compression.v2.coreMemory);
    expect(after.content).toEqual(before.content);
    const dry = JSON.parse(await memfade('backfill', '--all', '--dry-run', '--json'));
    // It, and any memory the faithfulness gate left a stage short (still due: V2 is its target).
    const gate = await refused();
    expect(dry.counts).toEqual({ v1: 0, v2: 1 + gate.length });
    expect(dry.first.sort()).toEqual([`${id} -> v2`, ...gate.map((m) => `${m.memoryId} -> v2`)].sort());
  });

  it('SIGTERM lets the worker finish and exit with 128 + 15', async () => {
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    worker!.kill('SIGTERM');
    expect(await exited).toBe(143);
    worker = undefined;
  });

  it("forget --memory removes one memory's derived data (dry run first), never its content, with a receipt", async () => {
    const id = `${userId(alice)}-2023-04-27`;
    const before = JSON.parse(await memfade('inspect', id, '--json')).memory;
    // Rolled back to V1 above: a V1 result, a rollback holding the V2 result, a vector record.
    const dry = JSON.parse(await memfade('forget', '--memory', id, '--dry-run', '--json'));
    expect(dry).toEqual({
      target: { memoryId: id },
      dryRun: true,
      vectorRecords: 1,
      memories: 1,
      runErrors: 0,
      receipt: [],
      failures: [],
    });
    expect(JSON.parse(await memfade('inspect', id, '--json')).memory.compression.v1).toBeDefined();
    const done = JSON.parse(await memfade('forget', '--memory', id, '--json'));
    expect(done).toMatchObject({ dryRun: false, vectorRecords: 1, memories: 1, failures: [] });
    // Batch mode is off: its two places are clean (no request of these memories on record) or not
    // checked, as the batch side reports them; every other place is clean.
    expect(done.receipt.map((e: { place: string; status: string }) => `${e.place}: ${e.status}`)).toEqual([
      'stage results (MongoDB): clean',
      'run errors (MongoDB): clean',
      'vector records: clean',
      'vector store history: clean',
      'compress jobs (Redis): clean',
      expect.stringMatching(/^batch requests in flight: (clean|not checked)$/),
      expect.stringMatching(/^provider batch files: (clean|not checked)$/),
    ]);
    const after = JSON.parse(await memfade('inspect', id, '--json')).memory;
    expect(after.compression).toBeUndefined();
    expect(after.vectorSync).toBeUndefined();
    expect(after.meta.compressionStage).toBe('raw');
    expect(after.content).toEqual(before.content);
    // Nothing left: a second time removes nothing, and that is not a failure.
    const again = await memfade('forget', '--memory', id);
    expect(again.split('\n')[0]).toBe(
      `memory ${id}: removed 0 vector records, the stage results of 0 memories and 0 run errors`,
    );
    expect(again).toMatch(/^vector records\s+clean\s+removed 0 records$/m);
  });

  it('forget runs with no model key set: erasure opens no compressor and no embedder (docs/design.md invariant 8)', async () => {
    const id = `${userId(alice)}-2023-04-27`;
    // A model provider in batch mode, and neither its key nor its model set: every command that
    // opens the model refuses to start, naming the key; forget has no batch of this memory to
    // delete at the provider, so it never asks for the key.
    const keyless = childEnv({ ...env, MEMFADE_PROVIDER: 'anthropic', MODEL_MODE: 'batch' });
    const memfadeKeyless = async (...args: string[]) =>
      (await run(process.execPath, [cli, ...args], { env: keyless, timeout: WORKER_WAIT_MS })).stdout;
    await expect(memfadeKeyless('reindex', '--user', userId(alice))).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    const report = JSON.parse(await memfadeKeyless('forget', '--memory', id, '--json'));
    expect(report).toMatchObject({ dryRun: false, failures: [] });
    expect(report.receipt.map((e: { place: string; status: string }) => `${e.place}: ${e.status}`)).toEqual([
      'stage results (MongoDB): clean',
      'run errors (MongoDB): clean',
      'vector records: clean',
      'vector store history: clean',
      'compress jobs (Redis): clean',
      'batch requests in flight: clean',
      'provider batch files: clean',
    ]);
  });

  it('forget --user removes every derived record of the user, leaves no older copy in the LanceDB folder, and prints the receipt', async () => {
    const out = await memfade('forget', '--user', userId(bob));
    expect(out.split('\n')[0]).toBe(
      `user ${userId(bob)}: removed ${memoriesOf(bob)} vector records, the stage results of ` +
        `${memoriesOf(bob)} memories and 0 run errors`,
    );
    expect(out).toMatch(/^place\s+status\s+what was done$/m);
    expect(out).toMatch(/^stage results \(MongoDB\)\s+clean\s+removed from \d+ memories/m);
    expect(out).toMatch(/^vector store history\s+clean\s+removed \d+ older table versions/m);
    expect(out).toMatch(
      new RegExp(`^compress jobs \\(Redis\\)\\s+clean\\s+removed ${memoriesOf(bob)} finished jobs`, 'm'),
    );
    expect(out).toMatch(/^provider batch files\s+(clean|not checked)\s/m);
    expect(out).toMatch(/^ {2}stage results \(MongoDB\): MongoDB's oplog/m);
    // The current version holds no record of Bob's (the receipt's entry looked again), and nothing
    // else is kept: a delete alone would leave the previous version and a deletion file hiding them.
    expect(await lanceLeftovers(lanceDir)).toEqual({
      olderVersions: 0,
      deletionFiles: 0,
      unreferencedData: [],
    });
    const { stages } = await status();
    const short = (await refused()).length;
    expect(stages).toMatchObject({ v2: total - memoriesOf(bob) - 1 - short, other: 0 });
    expect(stages.raw + stages.v1).toBe(memoriesOf(bob) + 1 + short);
  });

  it('reindex --prune deletes the records of memories the product deleted', async () => {
    const mongo = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: env.MONGODB_DB! });
    try {
      await mongo.collection('memories').deleteMany({ userId: userId(alice) });
    } finally {
      await mongo.close();
    }
    // Alice's memories minus the one forgotten above had records; Bob's were forgotten.
    const records = total - memoriesOf(bob) - 1;
    expect(await memfade('reindex', '--prune')).toMatch(
      new RegExp(
        `^pruned ${memoriesOf(alice) - 1} of ${records} vector records: ${memoriesOf(alice) - 1} of deleted`,
      ),
    );
    expect(await memfade('reindex', '--prune')).toMatch(
      new RegExp(`^pruned 0 of ${records - memoriesOf(alice) + 1} vector records`),
    );
  });

  it('reindex compacts the LanceDB folder only while it holds the vector write lock', async () => {
    const redis = producerConnection(inject('redisUrl'));
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let taken = () => {};
    const holding = new Promise<void>((resolve) => (taken = resolve));
    // Another writer of the fleet holds the lock.
    const other = vectorWriteLock(
      redis,
      env.MEMFADE_QUEUE_PREFIX!,
    )(async () => {
      taken();
      await held;
    });
    await holding;
    const child = spawn(process.execPath, [cli, 'reindex', '--prune'], { env });
    let out = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    let exited = false;
    const code = new Promise<number | null>((resolve) =>
      child.once('exit', (c) => {
        exited = true;
        resolve(c);
      }),
    );
    // Printed just before the compaction: the sweep had nothing to delete, so took no lock.
    await until(async () => out.includes('pruned 0 of'), WORKER_WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(exited).toBe(false);
    release();
    await other;
    expect(await code).toBe(0);
    await redis.quit();
  });

  it('forget needs exactly one of --user and --memory', async () => {
    await expect(memfade('forget')).rejects.toMatchObject({ code: 2 });
    await expect(memfade('forget', '--user', 'a', '--memory', 'b')).rejects.toMatchObject({ code: 2 });
  });

  it('forget --user of an id memfade never saw exits 2 naming it (like backfill), unless --allow-unknown', async () => {
    // Before: exit 0 with an all-clean receipt, as if a user had been erased.
    for (const args of [[], ['--dry-run'], ['--json']])
      await expect(memfade('forget', '--user', 'bob-typo', ...args)).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining("memfade knows no user 'bob-typo'"),
      });
    const known = JSON.parse(await memfade('forget', '--user', 'bob-typo', '--allow-unknown', '--json'));
    expect(known.unknown).toBeUndefined();
    expect(known.receipt.map((e: { place: string }) => e.place)).toContain('vector records');
  });
});
