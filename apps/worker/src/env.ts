import { configFromEnv, envSchema, type MemfadeConfig } from '@memfade/app';
import { ConfigError, parseEnv, unsetEmpty } from '@memfade/runtime';

/** The worker's configuration, parsed once (README "Configuration"). */
export function loadConfig(): MemfadeConfig {
  const config = configFromEnv(parseEnv(envSchema, unsetEmpty(process.env)));
  if (!config.redisUrl) throw new ConfigError('invalid configuration:\n  REDIS_URL: required for the worker');
  if (!config.mongodbUri)
    throw new ConfigError('invalid configuration:\n  MONGODB_URI: required for the worker');
  return config;
}
