import { parseEnv, unsetEmpty } from '@memfade/runtime';
import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/service';

/** The dashboard's configuration (README "Configuration"), parsed once. */
export function loadConfig(): MemfadeConfig {
  return configFromEnv(parseEnv(envSchema, unsetEmpty(process.env)));
}
