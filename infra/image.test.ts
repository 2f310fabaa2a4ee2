import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, chown, readdir, readFile, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { childEnv, runCommand, tempDir, uniqueName, until, workerMongoUri } from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * The container image (infra/Dockerfile), tested without a Docker engine: its data-folder layout is
 * read from the Dockerfile and reproduced with the worker run as the image's unprivileged user, and
 * the production install's packages are listed by pnpm with the Dockerfile's own filters.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const infra = join(root, 'infra');
const run = promisify(execFile);

/** The `node` user of the official Node images, which the Dockerfile switches to. */
const NODE_UID = 1000;

describe('infra/Dockerfile', () => {
  it('creates the data folder, owned by the user it runs as, where compose mounts the volume', async () => {
    const dockerfile = await readFile(join(infra, 'Dockerfile'), 'utf8');
    const image = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const lancedbDir = image.match(/LANCEDB_DIR=(\S+)/)?.[1];
    expect(lancedbDir, 'the image sets LANCEDB_DIR').toBeDefined();
    const dataDir = dirname(lancedbDir!);
    const userAt = image.indexOf('USER node');
    const chownAt = image.search(new RegExp(`mkdir -p ${dataDir} && chown node:node ${dataDir}\\b`));
    expect(chownAt, `the image creates ${dataDir} and gives it to node`).toBeGreaterThan(0);
    expect(chownAt).toBeLessThan(userAt);
    const compose = await readFile(join(infra, 'compose.yaml'), 'utf8');
    expect(compose).toContain(`volumes: [vectors:${dataDir}]`);
    expect(compose).toContain(`LANCEDB_DIR: ${lancedbDir}`);
  });

  it("installs for production no test tool, bundler or the demo's embedded MongoDB-wire server", async () => {
    const dockerfile = await readFile(join(infra, 'Dockerfile'), 'utf8');
    const prodInstall = dockerfile.match(/pnpm install --frozen-lockfile --prod([^\n]*\n)+?(?=\n|FROM)/)?.[0];
    const filters = [...(prodInstall ?? '').matchAll(/--filter-prod '([^']+)'/g)].map((m) => m[1]!);
    expect(filters).toEqual(['@memfade/worker...', '@memfade/dashboard...', '@memfade/cli...']);
    // What that install would put in the image, as pnpm resolves it from the lockfile.
    const listing = await run(
      'pnpm',
      ['ls', '--prod', '--depth', 'Infinity', '--json', ...filters.flatMap((f) => ['--filter-prod', f])],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    const names = new Set<string>();
    const walk = (deps: Record<string, { dependencies?: never }> | undefined) => {
      for (const [name, dep] of Object.entries(deps ?? {})) {
        if (names.has(name)) continue;
        names.add(name);
        walk(dep.dependencies);
      }
    };
    const projects = JSON.parse(listing.stdout) as { name: string; dependencies?: never }[];
    expect(projects.map((p) => p.name)).toContain('@memfade/worker');
    for (const project of projects) walk(project.dependencies);
    expect(names).toContain('bullmq');
    expect(names).toContain('@lancedb/lancedb');
    const devOnly = [...names].filter((name) =>
      /^(vitest|@vitest\/|vite|esbuild|@esbuild\/|@jongodb\/|@memfade\/testing|playwright|typescript$)/.test(
        name,
      ),
    );
    expect(devOnly).toEqual([]);
  });
});

describe("the worker as the image's unprivileged user on a fresh, empty data folder", () => {
  const main = join(root, 'apps/worker/dist/main.js');
  const healthcheck = join(root, 'apps/worker/dist/healthcheck.js');
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const cleanup of cleanups) await cleanup();
  });

  // Tests run as root here: drop to the image's uid, as `USER node` does. Run by anyone else, they
  // are unprivileged already and run as themselves.
  const asUser = (command: string[]) =>
    process.getuid?.() === 0
      ? ['setpriv', `--reuid=${NODE_UID}`, `--regid=${NODE_UID}`, '--clear-groups', ...command]
      : command;

  /** A data folder laid out as the image lays out /var/lib/memfade: empty; owned by the app's user or not. */
  const dataFolder = async (owned: boolean) => {
    const folder = await tempDir('memfade-data-');
    cleanups.push(folder.remove);
    await chmod(folder.dir, 0o755);
    if (owned && process.getuid?.() === 0) await chown(folder.dir, NODE_UID, NODE_UID);
    if (!owned && process.getuid?.() !== 0) await chmod(folder.dir, 0o555);
    return folder.dir;
  };

  const workerEnv = (dataDir: string) =>
    childEnv({
      REDIS_URL: inject('redisUrl'),
      MONGODB_URI: workerMongoUri(inject('mongoUris')),
      MONGODB_DB: uniqueName('db'),
      MEMFADE_QUEUE_PREFIX: uniqueName('q'),
      LANCEDB_DIR: join(dataDir, 'lancedb'),
      WORKER_HEARTBEAT_FILE: join(dataDir, 'heartbeat'),
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });

  const startWorker = (env: NodeJS.ProcessEnv) => {
    const [command, ...args] = asUser([process.execPath, main]);
    const child = spawn(command!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  };

  const checkHealth = (env: NodeJS.ProcessEnv) => {
    const [command, ...args] = asUser([process.execPath, healthcheck]);
    return runCommand(command!, args, { env });
  };

  it('becomes healthy, creates its LanceDB tables, and turns unhealthy once its heartbeat ages', async () => {
    const dataDir = await dataFolder(true);
    const env = workerEnv(dataDir);
    const heartbeat = join(dataDir, 'heartbeat');
    expect((await checkHealth(env)).code, 'no heartbeat before the worker runs').toBe(1);

    const worker = startWorker(env);
    let exitCode: number | null | undefined;
    void worker.exited.then((code) => {
      exitCode = code;
    });
    await until(
      async () =>
        exitCode !== undefined ||
        (await stat(heartbeat).then(
          () => true,
          () => false,
        )),
      30_000,
      worker.output,
    );
    expect(exitCode, worker.output()).toBeUndefined();
    expect((await stat(heartbeat)).uid).toBe(process.getuid?.() === 0 ? NODE_UID : process.getuid?.());
    expect((await readdir(join(dataDir, 'lancedb'))).length).toBeGreaterThan(0);
    const healthy = await checkHealth(env);
    expect(healthy, healthy.output).toEqual({ code: 0, output: '' });

    worker.child.kill('SIGKILL');
    await worker.exited;
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await utimes(heartbeat, aMinuteAgo, aMinuteAgo);
    const stale = await checkHealth(env);
    expect(stale.code).toBe(1);
    expect(stale.output).toContain(`no fresh heartbeat in ${heartbeat}`);
  });

  it('exits 2 with the reason when the data folder is not its own (what the old image did)', async () => {
    const dataDir = await dataFolder(false);
    const worker = startWorker(workerEnv(dataDir));
    const timer = setTimeout(() => worker.child.kill('SIGKILL'), 30_000);
    const code = await worker.exited;
    clearTimeout(timer);
    expect(code, worker.output()).toBe(2);
    expect(worker.output()).toMatch(/permission denied/i);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('reports a missing WORKER_HEARTBEAT_FILE instead of calling the worker healthy', async () => {
    const env = workerEnv(await dataFolder(true));
    delete env.WORKER_HEARTBEAT_FILE;
    const result = await checkHealth(env);
    expect(result.code).toBe(1);
    expect(result.output).toContain('WORKER_HEARTBEAT_FILE is not set');
  });
});
