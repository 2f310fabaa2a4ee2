import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFromEnv, envSchema } from './config.js';

const example = readFileSync(fileURLToPath(new URL('../../../infra/.env.example', import.meta.url)), 'utf8');
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
    expect(config.provider).toEqual({ provider: 'offline' });
    expect(config.schedule).toEqual({ cron: '0 3 * * *', tz: 'UTC', enabled: true });
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
});
