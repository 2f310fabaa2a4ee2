import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type EmbeddedProcess, freePort, spawnUntilReady } from './child-process.js';

export interface EmbeddedMongo extends EmbeddedProcess {
  /** Connection string without a database name; pass the database to mongoose separately. */
  uri: string;
  port: number;
}

const BINARY_PACKAGE = '@jongodb/memory-server-bin-linux-x64-gnu';

/** Path of the MongoDB-wire-compatible in-memory server (docs/design.md §8). */
export function jongodbBinary(): string {
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve(`${BINARY_PACKAGE}/package.json`)), 'bin', 'jongodb');
  } catch {
    throw new Error(
      `${BINARY_PACKAGE} is not installed (it exists for linux-x64 glibc only); set MONGODB_URI to a MongoDB server instead`,
    );
  }
}

/** Starts the in-memory MongoDB-wire server on a free port. It keeps nothing once stopped. */
export async function startMongoServer(options: { port?: number } = {}): Promise<EmbeddedMongo> {
  const port = options.port ?? (await freePort());
  const args = ['--host=127.0.0.1', `--port=${port}`, '--database=memfade'];
  const server = await spawnUntilReady(jongodbBinary(), args, /JONGODB_URI=(\S+)/);
  return { child: server.child, stop: server.stop, port, uri: `mongodb://127.0.0.1:${port}` };
}
