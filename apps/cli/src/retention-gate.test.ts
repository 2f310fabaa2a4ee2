import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectMongo, createModels } from '@memfade/db';
import { childEnv, tempDir, uniqueName, until, workerMongoUri } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const workerMain = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));
const run = promisify(execFile);

/** One day of one user, full of dates, places, names and numbers: more than a V2 can hold. */
const facts = [
  'I moved to Lisbon on 7 May 2023 and my sister Ana followed on 12 June 2023.',
  'The rent is 900 euros, the flat is on the 4th floor and has 3 rooms.',
  'In July 2023 we drove to Porto, then to Braga, and in August 2023 to Coimbra.',
  'My brother Tom flies in from Boston on 2 September 2023 for 10 days.',
  'I start at the Gulbenkian Museum on 1 October 2023, 35 hours a week.',
  'Our cat Miso turned 4 on 15 March 2023; the vet in Alfama charged 60 euros.',
  'My friend Leila runs a bakery in Sintra and sells 200 pastries every Saturday.',
  'In November 2023 I will take the train to Madrid for the Prado, 3 hours each way.',
  'Ana found a job at a bank in Cascais on 20 June 2023, she earns 2,100 euros.',
  'We planted 12 tomato plants on the balcony in April 2023.',
];
const reply =
  'That sounds like a lot of news. Tell me more about it, I would love to hear how you feel about all of it.';
const day = facts.map((text) => ({ query: text, response: reply }));
const data = { Maya: { name: 'Maya', meta_information: { name: 'Maya' }, history: { '2023-04-27': day } } };

/**
 * Retention-gated promotion through the built worker and CLI on real services (docs/design.md §11):
 * with RETENTION_GATE=refuse and a V2 that must keep every fact of V1, the offline V2 is refused;
 * the memory stays at V1 and the reason, `retention`, shows in inspect, status and the run's errors.
 */
describe('the retention gate refusing a stage (built worker and CLI)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let worker: ChildProcess | undefined;
  const env = childEnv({
    REDIS_URL: inject('redisUrl'),
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: uniqueName('db'),
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    SCHEDULER_ENABLED: 'false',
    VECTOR_SYNC_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    RETENTION_GATE: 'refuse',
    RETENTION_MIN_V1: '0',
    RETENTION_MIN_V2: '1',
  });
  const memfade = async (...args: string[]) =>
    (await run(process.execPath, [cli, ...args], { env, timeout: 60_000 })).stdout;

  // The wait reads the run from MongoDB: polling `memfade status` kept a process starting (about a
  // second of CPU each) for as long as the night lasted. What the test asserts still comes from the CLI.
  let db: Awaited<ReturnType<typeof connectMongo>> | undefined;

  beforeAll(async () => {
    db = await connectMongo(env.MONGODB_URI!, { dbName: env.MONGODB_DB! });
    dir = await tempDir('memfade-gate-');
    const file = join(dir.dir, 'maya.json');
    await writeFile(file, JSON.stringify(data));
    await memfade('import', file, '--format', 'memorybank', '--prefix', 'g');
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await db?.close();
    await dir?.remove();
  });

  it('keeps V1, and says why V2 was refused in inspect, status and the run errors', async () => {
    const { runId } = JSON.parse(await memfade('backfill', '--user', 'g-Maya', '--json'));
    worker = spawn(process.execPath, [workerMain], {
      env: { ...env, WORKER_CONCURRENCY: '1' },
      stdio: 'ignore',
    });
    const status = async () => JSON.parse(await memfade('status', '--json'));
    // A worker's start and a night of one memory take seconds; on a loaded machine, a minute.
    const records = createModels(db!).runs;
    await until(async () => Boolean((await records.findOne({ runId }).lean())?.finishedAt), 90_000);
    const { runs, stages, lastRunErrors } = await status();
    expect(stages).toMatchObject({ raw: 0, v1: 1, v2: 0 });
    expect(runs[0].counts).toMatchObject({ v1: 1, v2: 0, failed: 1, retentionRefused: 1 });
    expect(lastRunErrors).toEqual([
      expect.objectContaining({
        stage: 'v2',
        message: expect.stringMatching(/: retention: V2 keeps \d+ of the \d+ facts/),
      }),
    ]);
    // No fact of the memory in the reason: it goes to the run's errors, which operators share.
    expect(lastRunErrors[0].message).not.toMatch(/Lisbon|Porto|Miso|900/);
    expect(await memfade('status')).toMatch(/retention gate: 0 stages written with a warning, 1 refused/);
    const inspect = await memfade('inspect', 'g-Maya-2023-04-27');
    expect(inspect).toMatch(/at v1,/);
    expect(inspect).toMatch(/last error \(v2, 1 attempts\): memory g-Maya-2023-04-27: retention: V2 keeps/);
  }, 120_000);
});
