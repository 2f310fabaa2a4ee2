import { type EmbeddedProcess, freePort, spawnUntilReady } from './child-process.js';

export interface EmbeddedRedis extends EmbeddedProcess {
  url: string;
  port: number;
}

/**
 * Starts a private `redis-server` (Debian's package) on a free loopback port. noeviction because
 * BullMQ must never lose keys to memory pressure. Without `dataDir` it keeps nothing on disk; with
 * it, every write goes to an append-only file there first (as production should run it), so a
 * server stopped and started again on the same port and folder comes back with every key.
 */
export async function startRedisServer(
  options: { port?: number; dataDir?: string } = {},
): Promise<EmbeddedRedis> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', ''];
  if (options.dataDir) args.push('--dir', options.dataDir, '--appendonly', 'yes', '--appendfsync', 'always');
  else args.push('--appendonly', 'no');
  args.push('--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', '');
  const server = await spawnUntilReady('redis-server', args, /Ready to accept connections/);
  return { child: server.child, stop: server.stop, port, url: `redis://127.0.0.1:${port}` };
}
