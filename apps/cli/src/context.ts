import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createServices,
  type ErasureServices,
  type MemfadeConfig,
  type Operations,
  openErasure,
  openOperations,
  type Services,
} from '@memfade/app';
import { ConfigError, createLogger, type Logger, startMongoServer, startRedisServer } from '@memfade/runtime';
import { loadConfig } from './env.js';

export function cliLogger(config: MemfadeConfig): Logger {
  // Logs go to stderr so --json output on stdout stays machine-readable.
  return createLogger({
    level: config.logLevel === 'info' ? 'warn' : config.logLevel,
    destination: process.stderr as never,
  });
}

/** Opens what a command needs, runs it, and closes what was opened however the command ends. */
async function withContext<C extends { close(): Promise<void> }, T>(
  open: () => Promise<C>,
  command: (context: C) => Promise<T>,
): Promise<T> {
  const context = await open();
  try {
    return await command(context);
  } finally {
    await context.close();
  }
}

function configured(): MemfadeConfig {
  const config = loadConfig();
  if (!config.redisUrl)
    throw new ConfigError('REDIS_URL is not set (memfade demo starts its own; other commands need yours)');
  if (!config.mongodbUri) throw new ConfigError('MONGODB_URI is not set');
  return config;
}

/**
 * MongoDB and the queues: all that every command but `reindex` and the demo needs. No model, no
 * embedder and no vector store, so these commands need no model key and write no vectors: the
 * worker's vector sync writes what their changes flag in the outbox.
 */
export function withOperations<T>(command: (operations: Operations) => Promise<T>): Promise<T> {
  return withContext(() => {
    const config = configured();
    return openOperations(config, { logger: cliLogger(config) });
  }, command);
}

/** The operations plus the model, the embedder and the configured vector store (`reindex`). */
export function withServices<T>(command: (services: Services) => Promise<T>): Promise<T> {
  return withContext(() => {
    const config = configured();
    return createServices(config, { logger: cliLogger(config) });
  }, command);
}

/**
 * The operations, the vector store and erasure (`forget`): no model and no embedder, so no model
 * key unless a batch at the provider holds what is forgotten (docs/design.md invariant 8).
 */
export function withErasure<T>(command: (services: ErasureServices) => Promise<T>): Promise<T> {
  return withContext(() => {
    const config = configured();
    return openErasure(config, { logger: cliLogger(config) });
  }, command);
}

export interface DemoContext {
  services: Services;
  /** The embedded servers the demo started. */
  embedded: string[];
  close(): Promise<void>;
}

/**
 * The demo's services: whatever of Redis and MongoDB is not configured is started privately for
 * this command, with a fresh vector folder next to its private MongoDB.
 */
export function withDemoContext<T>(command: (context: DemoContext) => Promise<T>): Promise<T> {
  return withContext(async () => {
    const config = loadConfig();
    const cleanups: (() => Promise<void>)[] = [];
    const embedded: string[] = [];
    let effective = config;
    const close = async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    };
    try {
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
      const services = await createServices(effective, { logger: cliLogger(config) });
      cleanups.push(() => services.close());
      return { services, embedded, close };
    } catch (error) {
      await close();
      throw error;
    }
  }, command);
}
