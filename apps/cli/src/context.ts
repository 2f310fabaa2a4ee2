import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger, startMongoServer, startRedisServer } from '@memfade/runtime';
import { createServices, type MemfadeConfig, type Services } from '@memfade/service';

export interface Context {
  services: Services;
  /** Embedded servers this command started, if any. */
  embedded: string[];
  close(): Promise<void>;
}

export function cliLogger(config: MemfadeConfig): Logger {
  // Logs go to stderr so --json output on stdout stays machine-readable.
  return createLogger({
    level: config.logLevel === 'info' ? 'warn' : config.logLevel,
    destination: process.stderr as never,
  });
}

/**
 * Connects to the configured Redis and MongoDB. With `embedded`, whatever is not configured is
 * started privately for this command (the demo), with a fresh vector folder.
 */
export async function openContext(
  config: MemfadeConfig,
  options: { embedded: boolean; now?: () => Date },
): Promise<Context> {
  const cleanups: (() => Promise<void>)[] = [];
  const embedded: string[] = [];
  let effective = config;
  if (options.embedded) {
    if (!config.redisUrl) {
      const redis = await startRedisServer();
      cleanups.push(redis.stop);
      embedded.push(`redis-server on ${redis.url}`);
      effective = { ...effective, redisUrl: redis.url };
    }
    if (!config.mongodbUri) {
      const mongo = await startMongoServer();
      cleanups.push(mongo.stop);
      embedded.push(`MongoDB-wire server (jongodb) on ${mongo.uri}`);
      const dir = await mkdtemp(join(tmpdir(), 'memfade-demo-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      effective = {
        ...effective,
        mongodbUri: mongo.uri,
        vector: { ...effective.vector, dir: join(dir, 'lancedb') },
      };
    }
  } else {
    if (!config.redisUrl)
      throw new Error('REDIS_URL is not set (memfade demo starts its own; other commands need yours)');
    if (!config.mongodbUri) throw new Error('MONGODB_URI is not set');
  }
  const services = await createServices(effective, { logger: cliLogger(config), now: options.now });
  return {
    services,
    embedded,
    close: async () => {
      await services.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}
