import { createServices, defaultConfig, type MemfadeConfig, type Services } from '@memfade/app';
import { createLogger, type Logger } from '@memfade/runtime';
import { type LlmEmulator, tempDir, uniqueName, workerMongoUri } from '@memfade/testing';
import { inject } from 'vitest';

export interface Harness {
  services: Services;
  config: MemfadeConfig;
  close(): Promise<void>;
}

/**
 * Real services for one test: the run's private Redis (unique queue prefix), a fresh database
 * on the MongoDB-wire server, LanceDB in a temp folder (or the store `vectorStore` names), the
 * offline compressor, a fixed clock.
 */
export async function startHarness(options: {
  now: Date;
  config?: Partial<MemfadeConfig>;
  /**
   * pgvector: the run's PostgreSQL (PGlite) in a table of this test's own; mongodb: a collection
   * of the test's database. LanceDB by default.
   */
  vectorStore?: MemfadeConfig['vector']['kind'];
  /** A logger of the test's own (to read what was logged); silent by default. */
  logger?: Logger;
}): Promise<Harness> {
  const vectorDir = await tempDir('memfade-lance-');
  const defaults = defaultConfig().vector;
  const config = defaultConfig({
    redisUrl: inject('redisUrl'),
    mongodbUri: workerMongoUri(inject('mongoUris')),
    mongodbDb: uniqueName('db'),
    queuePrefix: uniqueName('q'),
    vector: {
      ...defaults,
      kind: options.vectorStore ?? 'lancedb',
      dir: vectorDir.dir,
      pgvector: {
        ...defaults.pgvector,
        url: inject('pgvectorUrl'),
        table: uniqueName('vectors').replaceAll('-', '_'),
      },
    },
    concurrency: 8,
    // A failed job's retries come after 0.2 s, 0.4 s...: a test that retries waits no 5 s backoff.
    retryBackoffMs: 200,
    vectorSync: { enabled: true, batchSize: 256, intervalMs: 0 },
    logLevel: 'silent',
    // Sync unless a test asks for batch mode: the suites written for compress jobs stay as they are.
    batch: { ...defaultConfig().batch, mode: 'sync' },
    ...options.config,
  });
  const services = await createServices(config, {
    logger: options.logger ?? createLogger({ level: config.logLevel }),
    now: () => options.now,
  });
  return {
    services,
    config,
    close: async () => {
      await services.close();
      await vectorDir.remove();
    },
  };
}

/** A second set of services on the same Redis, database and vector folder: another replica. */
export async function startReplica(harness: Harness, now: Date): Promise<Services> {
  return createServices(harness.config, { logger: createLogger({ level: 'silent' }), now: () => now });
}

/** The anthropic provider's settings, talking to the LLM emulator through the real SDK. */
export function emulatedAnthropic(
  emulator: LlmEmulator,
  overrides: { timeoutMs?: number } = {},
): MemfadeConfig['provider'] {
  return {
    provider: 'anthropic',
    apiKey: 'sk-ant-test',
    model: 'emulated',
    baseURL: emulator.url,
    timeoutMs: overrides.timeoutMs ?? 5_000,
    maxTokens: 2_000,
  };
}

/** What the erasure sweep and forget read and write, without the queue or the batch side, at `now`. */
export const erasureDeps = ({ services, config }: Harness, now: Date) => ({
  models: services.models,
  store: services.vectors,
  memories: services.store,
  policy: config.policy,
  now: () => now,
});
