import { PermanentModelError, RateLimitedError, redactSecrets } from '@memfade/core';

const DEFAULT_RETRY_AFTER_MS = 30_000;

function header(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
}

/** retry-after-ms, else retry-after in seconds (or an HTTP date), else a default. */
export function retryAfterMs(headers: unknown, now = Date.now()): number {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (ms > 0) return ms;
  const after = header(headers, 'retry-after');
  if (after) {
    const seconds = Number(after);
    if (seconds >= 0 && Number.isFinite(seconds)) return Math.max(1, seconds * 1000);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(1, date - now);
  }
  return DEFAULT_RETRY_AFTER_MS;
}

/**
 * Sorts an SDK error into what the queue should do: wait (429/529), retry with backoff (5xx,
 * timeouts, connection errors: returned as they are) or give up (other 4xx).
 */
export function classifyModelError(error: unknown, provider: string): unknown {
  const status = (error as { status?: unknown }).status;
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  if (status === 429 || status === 529) {
    return new RateLimitedError(
      `${provider}: rate limited (${status})`,
      retryAfterMs((error as { headers?: unknown }).headers),
    );
  }
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 409) {
    return new PermanentModelError(`${provider}: request refused (${status}): ${message}`);
  }
  return error;
}
