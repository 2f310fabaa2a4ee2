import type { z } from 'zod';

/** Configuration that cannot work (a missing or malformed setting): raised at start-up, exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses an app's environment once with its zod schema; a bad value fails with every offending
 * variable named, with the ones this app requires (`required`: name -> why) that are not set.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
  required: Record<string, string> = {},
): z.infer<S> {
  const result = schema.safeParse(env);
  const problems = [
    ...(result.error?.issues ?? []).map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`),
    ...Object.entries(required)
      .filter(([name]) => env[name] === undefined)
      .map(([name, why]) => `  ${name}: ${why}`),
  ];
  if (!result.success || problems.length)
    throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
  return result.data;
}

/** Environment values are strings; an empty string means "not set". */
export function unsetEmpty(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
}
