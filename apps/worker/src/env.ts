import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/app';
import { parseEnv, unsetEmpty } from '@memfade/runtime';

/**
 * The worker's configuration, parsed once (README "Configuration"): every bad or missing setting
 * is named in one error, before anything is created on disk or connected.
 */
export function loadConfig(): MemfadeConfig {
  return configFromEnv(
    parseEnv(envSchema, unsetEmpty(process.env), {
      REDIS_URL: 'required for the worker',
      MONGODB_URI: 'required for the worker',
    }),
  );
}
