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
 * An error body, a request or a cause hanging on an SDK error may quote what was sent (an API key
 * echoed by a gateway, a base URL with credentials): everything the error says goes through
 * redactSecrets, and what only a debugger needs is dropped. The error keeps its class and status,
 * so the queue still tells a 5xx from a timeout.
 */
function scrubbed<E>(error: E, depth = 0): E {
  if (!(error instanceof Error)) return error;
  error.message = redactSecrets(error.message);
  if (error.stack) error.stack = redactSecrets(error.stack);
  const carrier = error as unknown as Record<string, unknown>;
  for (const key of ['error', 'body', 'request', 'response', 'config']) {
    if (key in carrier) carrier[key] = undefined;
  }
  if (error.cause !== undefined) error.cause = depth < 3 ? scrubbed(error.cause, depth + 1) : undefined;
  return error;
}

/**
 * Sorts an SDK error into what the queue should do: wait (429/529), retry with backoff (5xx,
 * timeouts, connection errors: returned as they are, scrubbed) or give up (other 4xx).
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
  return scrubbed(error);
}
