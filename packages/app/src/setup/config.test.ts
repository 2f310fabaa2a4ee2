import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config.js';
import { envSchema } from './env-schema.js';
import { configSecrets } from './secrets.js';

const example = readFileSync(
  fileURLToPath(new URL('../../../../infra/.env.example', import.meta.url)),
  'utf8',
);
const exampleEnv = Object.fromEntries(
  example
    .split('\n')
    .filter((line) => /^[A-Z]/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
    .filter(([, value]) => value !== ''),
);

describe('configuration', () => {
  it('infra/.env.example lists every variable the schema knows, and nothing else', () => {
    const documented = example
      .split('\n')
      .filter((l) => /^[A-Z]/.test(l))
      .map((l) => l.slice(0, l.indexOf('=')));
    expect(documented.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('parses the example into the defaults', () => {
    const config = configFromEnv(envSchema.parse(exampleEnv));
    // The offline compressor anchors its dates to the day where the nights are, as a model's prompt does.
    expect(config.provider).toEqual({ provider: 'offline', timeZone: 'UTC' });
    const shanghai = configFromEnv(envSchema.parse({ ...exampleEnv, SCHEDULE_TZ: 'Asia/Shanghai' }));
    expect(shanghai.provider).toEqual({ provider: 'offline', timeZone: 'Asia/Shanghai' });
    expect(config.schedule).toEqual({
      cron: '0 3 * * *',
      tz: 'UTC',
      enabled: true,
      catchUp: 'after-first-run',
    });
    expect(config.policy.v1AfterDays).toBe(3);
    // The limits (limits.test.ts shows each enforced): a job timeout by default, no run cap.
    expect(config).toMatchObject({ jobTimeoutMs: 600_000, runMaxMemories: 0 });
    expect(config.policy).toMatchObject({ maxInputBytes: 1_000_000, maxChunks: 16 });
  });

  it('names the variable of a bad value', () => {
    expect(() => configFromEnv(envSchema.parse({ STAGE_V1_DAYS: '7', STAGE_V2_DAYS: '3' }))).toThrow(
      /v2AfterDays/,
    );
    expect(
      envSchema.safeParse({ MEMFADE_PRICES: '{"m": {"input": "cheap"}}' }).error?.issues[0]?.path,
    ).toEqual(['MEMFADE_PRICES']);
    expect(envSchema.safeParse({ MEMFADE_PROVIDER: 'gemini' }).error?.issues[0]?.path).toEqual([
      'MEMFADE_PROVIDER',
    ]);
    for (const name of ['JOB_TIMEOUT_MS', 'RUN_MAX_MEMORIES']) {
      expect(envSchema.safeParse({ [name]: '-1' }).error?.issues[0]?.path).toEqual([name]);
      expect(envSchema.safeParse({ [name]: 'ten' }).error?.issues[0]?.path).toEqual([name]);
    }
  });

  it('MEMORIES_PER_REQUEST: 1 by default, 1-8, anything else named with the range', () => {
    const parse = (env: Record<string, string>) => configFromEnv(envSchema.parse(env));
    expect(parse({}).batch.perRequest).toBe(1);
    expect(parse({ MEMORIES_PER_REQUEST: '8' }).batch.perRequest).toBe(8);
    for (const value of ['0', '9', '2.5', 'two']) {
      const issue = envSchema.safeParse({ MEMORIES_PER_REQUEST: value }).error?.issues[0];
      expect(issue?.path).toEqual(['MEMORIES_PER_REQUEST']);
      expect(issue?.message).toBe('must be a whole number from 1 to 8');
    }
  });

  it('the retention gate: warn at 60% (V1) and 50% (V2) by default; a share outside 0-1 is named', () => {
    const parse = (env: Record<string, string>) => configFromEnv(envSchema.parse(env));
    expect(parse({}).policy.retention).toEqual({ gate: 'warn', minV1: 0.6, minV2: 0.5 });
    expect(parse({ RETENTION_GATE: 'refuse', RETENTION_MIN_V2: '0.25' }).policy.retention).toEqual({
      gate: 'refuse',
      minV1: 0.6,
      minV2: 0.25,
    });
    for (const [name, value] of [
      ['RETENTION_MIN_V1', '1.5'],
      ['RETENTION_MIN_V2', 'half'],
      ['RETENTION_GATE', 'fail'],
    ])
      expect(envSchema.safeParse({ [name!]: value }).error?.issues[0]?.path).toEqual([name]);
  });

  it('chooses the vector store: pgvector needs its URL, whose password is a secret', () => {
    const parse = (env: Record<string, string>) => configFromEnv(envSchema.parse(env));
    expect(parse({}).vector).toMatchObject({
      kind: 'lancedb',
      pgvector: { table: 'memfade_vectors', poolSize: 4 },
      mongodb: { collection: 'memfade_vectors', searchIndex: 'memfade_vector_index' },
    });
    expect(() => parse({ VECTOR_STORE: 'pgvector' })).toThrow(
      /PGVECTOR_URL is required with VECTOR_STORE=pgvector/,
    );
    const config = parse({
      VECTOR_STORE: 'pgvector',
      PGVECTOR_URL: 'postgresql://memfade:s3cr%40t-pg@db:5432/memfade',
      PGVECTOR_TABLE: 'vectors_eu',
      PGVECTOR_POOL_SIZE: '8',
    });
    expect(config.vector.pgvector).toEqual({
      url: 'postgresql://memfade:s3cr%40t-pg@db:5432/memfade',
      table: 'vectors_eu',
      poolSize: 8,
    });
    expect(configSecrets(config)).toEqual(expect.arrayContaining(['s3cr%40t-pg', 's3cr@t-pg']));
    expect(envSchema.safeParse({ VECTOR_STORE: 'chroma' }).error?.issues[0]?.path).toEqual(['VECTOR_STORE']);
    expect(envSchema.safeParse({ PGVECTOR_POOL_SIZE: '0' }).error?.issues[0]?.path).toEqual([
      'PGVECTOR_POOL_SIZE',
    ]);
  });
});
