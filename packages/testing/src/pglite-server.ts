import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type EmbeddedProcess, freePort, spawnUntilReady } from '@memfade/runtime';

export interface EmbeddedPostgres extends EmbeddedProcess {
  /** postgresql:// URL for the `pg` driver. */
  url: string;
  port: number;
}

/**
 * Connections the server accepts at once. Its default is 1, and a `pg.Pool` of several clients then
 * sees its extra connections closed ("Connection terminated unexpectedly"). With more allowed, the
 * server still runs one protocol message at a time on its single PGlite instance (all connections
 * share one session), and while one connection is inside a transaction it serves only that one, so
 * concurrent clients work, serialised. Enough for every test file's pools in one run.
 */
const MAX_CONNECTIONS = 64;

/**
 * PostgreSQL 18 with pgvector 0.8, compiled to WASM (PGlite), served over the PostgreSQL wire protocol
 * by pglite-socket's server (docs/design.md §8): a real server for the `pg` driver where no
 * PostgreSQL with pgvector can be installed. In memory: it keeps nothing once stopped. It runs in its
 * own process so its single-threaded WASM engine does not compete with the test runner's event loop.
 */
export async function startPgliteServer(options: { port?: number } = {}): Promise<EmbeddedPostgres> {
  const require = createRequire(import.meta.url);
  // The package's CommonJS entry sits in dist/, beside scripts/server.js (its `pglite-server` bin).
  const script = join(dirname(require.resolve('@electric-sql/pglite-socket')), 'scripts', 'server.js');
  const port = options.port ?? (await freePort());
  const args = [
    script,
    '--db=memory://',
    '--host=127.0.0.1',
    `--port=${port}`,
    '--extensions=@electric-sql/pglite-pgvector:vector',
    `--max-connections=${MAX_CONNECTIONS}`,
  ];
  // PGlite compiles its WebAssembly on start: seconds alone, up to a minute on a loaded 2-core machine.
  const server = await spawnUntilReady(process.execPath, args, /PGLiteSocketServer listening on/, 90_000);
  return {
    child: server.child,
    stop: server.stop,
    port,
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
  };
}
