import { configFromEnv, type MemfadeConfig } from '@memfade/app/setup/config';
import { envSchema } from '@memfade/app/setup/env-schema';
import { parseEnv, unsetEmpty } from '@memfade/runtime';

/** The CLI's configuration: the same variables as the worker, read once here. */
export function loadConfig(): MemfadeConfig {
  return configFromEnv(parseEnv(envSchema, unsetEmpty(process.env)));
}
