import { PermanentModelError, RateLimitedError } from '@memfade/core';
import { redactSecrets } from '@memfade/runtime';

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
  for (const key of ['error', 'body', 'request', 'response', 'config', 'param']) {
    if (key in carrier) carrier[key] = undefined;
  }
  // OpenAI's SDK copies the body's `code` onto the error, and the logger writes a code: an
  // identifier is kept, anything else a gateway put there is not.
  if (typeof carrier.code === 'string' && !/^[\w.-]{1,64}$/.test(carrier.code)) carrier.code = undefined;
  if (error.cause !== undefined) error.cause = depth < 3 ? scrubbed(error.cause, depth + 1) : undefined;
  return error;
}

/**
 * The provider's short code for an error (`api_error`, `overloaded_error`, `server_error`) from an
 * SDK error's parsed body: Anthropic's `{ type: 'error', error: { type } }`, OpenAI's `{ type }`.
 * Only an identifier is taken, never free text.
 */
function errorKind(error: unknown): string | undefined {
  const e = error as { type?: unknown; error?: { type?: unknown; error?: { type?: unknown } } };
  return [e.error?.error?.type, e.error?.type, e.type].find(
    (kind): kind is string =>
      typeof kind === 'string' && kind !== 'error' && /^[a-z][a-z0-9_]{0,63}$/.test(kind),
  );
}

/** The provider's id of the request (its support can look it up); an id, never free text. */
function requestId(error: unknown): string | undefined {
  const id = (error as { requestID?: unknown }).requestID;
  return typeof id === 'string' && /^[\w-]{1,128}$/.test(id) ? id : undefined;
}

/**
 * What an HTTP error from a provider says in memfade's logs and recorded errors: status, the
 * provider's error code and its request id. The SDKs' own message is the status followed by the
 * whole response body, which can quote the prompt (memory text) or what a gateway echoes back: it is
 * never kept (README "Secrets").
 */
function describeStatus(provider: string, what: string, status: number, error: unknown): string {
  const details = [errorKind(error), requestId(error) && `request id ${requestId(error)}`].filter(Boolean);
  return `${provider}: ${what} (${status})${details.length ? `: ${details.join(', ')}` : ''}`;
}

/**
 * Sorts an SDK error into what the queue should do: wait (429/529), retry with backoff (5xx,
 * timeouts, connection errors: returned as they are, scrubbed, an HTTP error's message replaced by
 * its status and kind) or give up (other 4xx).
 */
export function classifyModelError(error: unknown, provider: string): unknown {
  const status = (error as { status?: unknown }).status;
  if (status === 429 || status === 529) {
    return new RateLimitedError(
      `${provider}: rate limited (${status})`,
      retryAfterMs((error as { headers?: unknown }).headers),
    );
  }
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 409) {
    return new PermanentModelError(describeStatus(provider, 'request refused', status, error));
  }
  if (typeof status === 'number' && error instanceof Error) {
    const message = describeStatus(
      provider,
      status >= 500 ? 'server error' : 'request failed',
      status,
      error,
    );
    // The stack's first line repeats the SDK's message, body included.
    if (error.stack) error.stack = error.stack.replace(error.message, message);
    error.message = message;
  }
  return scrubbed(error);
}

/**
 * Whether a failed call may still have been billed: no HTTP reply came (a timeout, a dropped
 * connection, an abort), so the provider may have run it. An error reply (any status, 429 included)
 * bills nothing.
 */
export function mayHaveBeenBilled(error: unknown): boolean {
  if (error instanceof RateLimitedError || error instanceof PermanentModelError) return false;
  return typeof (error as { status?: unknown }).status !== 'number';
}
