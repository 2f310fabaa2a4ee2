import { type EmbeddedProcess, freePort, spawnUntilReady } from './child-process.js';

export interface EmbeddedRedis extends EmbeddedProcess {
  url: string;
  port: number;
}

/**
 * Starts a private `redis-server` (Debian's package) on a free loopback port, keeping nothing
 * on disk. noeviction because BullMQ must never lose keys to memory pressure.
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<EmbeddedRedis> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', '');
  const server = await spawnUntilReady('redis-server', args, /Ready to accept connections/);
  return { child: server.child, stop: server.stop, port, url: `redis://127.0.0.1:${port}` };
}
