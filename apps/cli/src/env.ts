import { parseEnv, unsetEmpty } from '@memfade/runtime';
import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/service';

/** The CLI's configuration: the same variables as the worker, read once here. */
export function loadConfig(): MemfadeConfig {
  return configFromEnv(parseEnv(envSchema, unsetEmpty(process.env)));
}
