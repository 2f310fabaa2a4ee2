import type { z } from 'zod';

/** Configuration that cannot work (a missing or malformed setting): raised at start-up, exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses an app's environment once with its zod schema; a bad value fails with every offending variable named. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`,
  );
  throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}

/** Environment values are strings; an empty string means "not set". */
export function unsetEmpty(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
}
