import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/app';
import { parseEnv, unsetEmpty } from '@memfade/runtime';

/** The dashboard's configuration (README "Configuration"), parsed once. */
export function loadConfig(): MemfadeConfig {
  return configFromEnv(parseEnv(envSchema, unsetEmpty(process.env)));
}
