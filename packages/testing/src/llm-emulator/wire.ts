import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BilledUsage } from './billing.js';
import type { Fault } from './faults.js';

/**
 * The emulator's wire, shared by the sync endpoints (server.ts) and the batch ones (batches.ts and
 * the files it serves): what a request is recorded as, and how a reply or a provider's error is sent.
 */

type Json = Record<string, unknown>;

export interface RecordedRequest {
  api: 'messages' | 'chat' | 'embeddings';
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: a recorded wire request, asserted on by tests
  body: any;
  fault?: Fault;
  /** Set for a request that came inside a batch: the batch's id and the request's custom id. */
  batchId?: string;
  customId?: string;
  /** What its reply billed (absent for an error reply, or a batch line not processed yet). */
  billed?: BilledUsage;
}

/** A reply as the sync endpoint sends it: status, body, headers. */
export interface Reply {
  status: number;
  body: Json;
  headers?: Record<string, string>;
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return; // the client gave up (timeout): nobody to answer
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** An error reply in the provider's shape; 429 and 529 can carry a retry-after header. */
export function errorReply(
  api: string,
  status: number,
  retryAfterSeconds?: number,
  message = `emulated ${status}`,
): Reply {
  const headers: Record<string, string> =
    retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {};
  const body =
    api === 'messages'
      ? { type: 'error', error: { type: errorType(status), message } }
      : {
          error: {
            message,
            type: status >= 500 ? 'server_error' : 'invalid_request_error',
            code: String(status),
          },
        };
  return { status, body, headers };
}

/** Anthropic's error type for a status. */
function errorType(status: number): string {
  if (status === 529) return 'overloaded_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  return 'api_error';
}
