import { registerSecrets } from '@memfade/runtime';
import type { MemfadeConfig } from './config.js';

/** The password of a connection string, as written and decoded; undefined when it has none. */
function urlPassword(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const { password } = new URL(url);
    return password ? [password, decodeURIComponent(password)] : [];
  } catch {
    return [];
  }
}

/**
 * Every secret value of a configuration: the model and embedding API keys, the passwords of the
 * Redis, MongoDB, PostgreSQL (pgvector) and endpoint URLs, the dashboard's and the metrics token. One list, so a new secret setting is
 * added in one place.
 */
export function configSecrets(config: MemfadeConfig): string[] {
  const provider = config.provider as { apiKey?: string; baseURL?: string };
  const embedder = config.embedder as { apiKey?: string; baseURL?: string };
  return [
    provider.apiKey,
    embedder.apiKey,
    ...urlPassword(provider.baseURL),
    ...urlPassword(embedder.baseURL),
    ...urlPassword(config.redisUrl),
    ...urlPassword(config.mongodbUri),
    ...urlPassword(config.vector.pgvector.url),
    config.dashboard.password,
    config.dashboard.metricsToken,
  ].filter((value): value is string => Boolean(value));
}

/**
 * Makes this process's logs and recorded errors blind to the configuration's secrets (see
 * redactSecrets), before anything can fail with one of them in its message.
 */
export function protectSecrets(config: MemfadeConfig): void {
  registerSecrets(...configSecrets(config));
}
