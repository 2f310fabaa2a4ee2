import { createHash } from 'node:crypto';
import type { BatchDeletion } from '@memfade/core';
import { classifyModelError } from './errors.js';
import type { ModelPrompt, ModelTurn, RepairTurn } from './model-client.js';

/**
 * Batch mode's provider layer: one interface over Anthropic Message Batches and the OpenAI Batch
 * API (docs/design.md §6, "Batch mode"). A request is the same prompt, schema and repair turn a sync
 * call takes, built into the same request body (anthropicParams / openaiParams), so a batch reply
 * is parsed into the same ModelTurn and validated by the same code as a sync reply.
 *
 * What the caller (the queue's batch path) owns, and this layer does not: recording what each
 * request stands for before submitting, retries (every method makes one HTTP call per page and
 * throws what classifyModelError makes of a failure: RateLimitedError, PermanentModelError, or a
 * retryable error), and applying results exactly once (results can be read again: a results file
 * read halfway is resumed by reading it again and skipping what was applied).
 */

/** One request in a batch: a sync call's arguments and a caller-chosen id, unique in its batch. */
export interface BatchRequest {
  /** 1-64 characters of [a-zA-Z0-9_-] (Anthropic's rule, applied to both): see batchCustomId. */
  customId: string;
  prompt: ModelPrompt;
  schema: Record<string, unknown>;
  repair?: RepairTurn;
}

/** Which run and which round of that run a batch belongs to, for finding it again after a crash. */
export interface BatchLabel {
  runId: string;
  round: number;
}

export interface SubmittedBatch {
  /** The provider's id of the batch. */
  batchId: string;
  /** When the provider says it created the batch. */
  submittedAt: Date;
}

/**
 * Anthropic's three states; OpenAI's eight map onto them: validating, in_progress and finalizing
 * are in_progress; cancelling is canceling; completed, expired, cancelled and failed are ended.
 */
export type BatchState = 'in_progress' | 'canceling' | 'ended';

/** Requests per state; they add up to the batch's size. */
export interface BatchCounts {
  processing: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}

export interface BatchStatus {
  state: BatchState;
  /**
   * Anthropic reports processing only until the batch ends, then the final tallies. OpenAI
   * reports completed and failed as they happen; at the end what is neither is counted expired
   * (an expired batch) or canceled (a cancelled one). These are progress figures: the outcome of
   * each request is what results() says.
   */
  counts: BatchCounts;
  createdAt: Date;
  endedAt?: Date;
  /**
   * Set when the whole batch failed without running a request (OpenAI `failed`: the input file
   * did not validate; the provider's error codes are given, never free text). Such a batch has no
   * result lines: every request it held is errored and not retryable as it was.
   */
  failure?: string;
}

export interface ListedBatch {
  batchId: string;
  createdAt: Date;
  state: BatchState;
  /** How many requests the batch holds. */
  requestCount: number;
  /**
   * OpenAI: the label given to submit(), read back from the batch's metadata. Anthropic batches
   * carry no metadata: this is undefined, and `tag` is the way back (below).
   */
  label?: BatchLabel;
  /**
   * The run tag and round of the batch, when they can be known: OpenAI from the metadata;
   * Anthropic from the custom id of the first result line (custom ids made by batchCustomId embed
   * them), so only once the batch has ended. Compare with batchRunTag(runId) of the open runs.
   */
  tag?: { runTag: string; round: number };
}

/** A request that came back with a reply: the reply parsed exactly as a sync call's. */
export interface SucceededResult {
  customId: string;
  outcome: 'succeeded';
  turn: ModelTurn;
}

/** A request that came back without a reply. */
export interface FailedResult {
  customId: string;
  outcome: 'errored' | 'canceled' | 'expired';
  /**
   * Whether the same request can be sent again: canceled and expired always; errored when the
   * provider's error is transient (rate limit, overload, server error, timeout), not when it
   * refused the request (invalid request, authentication, permission).
   */
  retryable: boolean;
  /** The provider, the outcome and its error code or status: never the provider's free text. */
  message: string;
}

export type BatchResult = SucceededResult | FailedResult;

export interface BatchLimits {
  maxRequests: number;
  /** Serialized size of the requests (requestBytes summed), in bytes. */
  maxBytes: number;
}

/**
 * A provider's batch API. Crash recovery: submit() returns only once the provider accepted the
 * batch, and a crash before the caller records the id loses nothing on the provider's side: list()
 * finds the batch again (created after a time the caller recorded before submitting; matched by
 * `label` on OpenAI, by `tag` on Anthropic once the batch ended, and by `requestCount` meanwhile).
 */
export interface BatchClient {
  readonly provider: 'anthropic' | 'openai';
  readonly model: string;
  /** The provider's limits per batch (docs/design.md §6); split with splitIntoBatches. */
  readonly limits: BatchLimits;
  /** The size one request adds to a batch, as this provider serializes it. */
  requestBytes(request: BatchRequest): number;
  /**
   * Sends one batch. Throws before any HTTP call when the requests break the limits or a custom
   * id is invalid or repeated. OpenAI: uploads the JSONL input file, then creates the batch with
   * the label in its metadata (a crash between the two leaves an unused file, no batch).
   */
  submit(requests: BatchRequest[], label: BatchLabel): Promise<SubmittedBatch>;
  status(batchId: string): Promise<BatchStatus>;
  /** Batches created at or after `createdAfter`, newest first, paged lazily. */
  list(options: { createdAfter: Date }): AsyncIterable<ListedBatch>;
  /** Asks the provider to cancel; the batch goes through canceling to ended. */
  cancel(batchId: string): Promise<void>;
  /**
   * The results of an ended batch, one per request, in any order, streamed line by line (never
   * the whole file in memory). A connection cut midway throws (a retryable error) after the lines
   * already yielded: read again and skip what was applied. OpenAI: the output file, then the error
   * file.
   */
  results(batchId: string): AsyncIterable<BatchResult>;
  /**
   * Removes the provider's copies of the batch, which hold memory text (docs/design.md invariant 8).
   * Neither provider deletes a batch still running: one not ended is canceled, and `pending` says
   * to call again once it has ended. What is already gone (404) is reported as such, not as an error.
   */
  delete(batchId: string): Promise<BatchDeletion>;
  /** Deletes the runs' uploads no batch reads (OpenAI: a submit died between upload and create). */
  deleteOrphanFiles(runIds: string[]): Promise<string[]>;
}

/** Runs a provider call whose 404 means the object is gone already: undefined then. */
export async function unlessGone<T>(
  call: () => Promise<T>,
  provider: 'anthropic' | 'openai',
): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw classifyModelError(error, provider);
  }
}

/** Anthropic's rule for custom ids; applied to both providers so one id scheme serves both. */
export const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** A run id in 12 hex characters: short enough for a custom id, whatever the run id holds. */
export function batchRunTag(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 12);
}

/**
 * A deterministic custom id that names its run and round: `<runTag>-<round>-<key>`, so a batch
 * found by list() after a crash says whose it is (Anthropic has no batch metadata). `key` is the
 * caller's id of the request in the run (e.g. a record id), of [a-zA-Z0-9_] and short enough for
 * the whole id to stay within 64 characters.
 */
export function batchCustomId(label: BatchLabel, key: string): string {
  const id = `${batchRunTag(label.runId)}-${label.round}-${key}`;
  if (
    !/^[a-zA-Z0-9_]+$/.test(key) ||
    !CUSTOM_ID.test(id) ||
    !Number.isInteger(label.round) ||
    label.round < 0
  ) {
    throw new Error(`batch custom id: key must be [a-zA-Z0-9_] and the id at most 64 characters: ${id}`);
  }
  return id;
}

/** The run tag, round and key of an id made by batchCustomId; undefined for any other id. */
export function parseBatchCustomId(id: string): { runTag: string; round: number; key: string } | undefined {
  const match = /^([0-9a-f]{12})-(\d+)-([a-zA-Z0-9_]+)$/.exec(id);
  return match ? { runTag: match[1]!, round: Number(match[2]), key: match[3]! } : undefined;
}

/** The checks submit() makes before any HTTP call. */
export function checkBatch(
  requests: BatchRequest[],
  limits: BatchLimits,
  sizeOf: (r: BatchRequest) => number,
): void {
  if (requests.length === 0) throw new Error('batch: no requests');
  if (requests.length > limits.maxRequests) {
    throw new Error(`batch: ${requests.length} requests, the limit is ${limits.maxRequests}`);
  }
  const seen = new Set<string>();
  let bytes = 0;
  for (const request of requests) {
    if (!CUSTOM_ID.test(request.customId)) throw new Error(`batch: invalid custom id ${request.customId}`);
    if (seen.has(request.customId)) throw new Error(`batch: custom id ${request.customId} twice`);
    seen.add(request.customId);
    bytes += sizeOf(request);
  }
  if (bytes > limits.maxBytes) throw new Error(`batch: ${bytes} bytes, the limit is ${limits.maxBytes}`);
}

/**
 * Splits requests, in order, into batches under the provider's limits and an optional configured
 * maximum (the smaller of the two wins), by count and by serialized size. A request larger than
 * the byte limit on its own cannot be sent in any batch: that throws.
 */
export function splitIntoBatches<T>(
  requests: readonly T[],
  sizeOf: (request: T) => number,
  limits: BatchLimits,
  maximum: Partial<BatchLimits> = {},
): T[][] {
  const maxRequests = Math.min(limits.maxRequests, maximum.maxRequests ?? Number.POSITIVE_INFINITY);
  const maxBytes = Math.min(limits.maxBytes, maximum.maxBytes ?? Number.POSITIVE_INFINITY);
  if (!(maxRequests >= 1)) throw new Error(`batch: at least one request per batch, not ${maxRequests}`);
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const request of requests) {
    const size = sizeOf(request);
    if (size > maxBytes)
      throw new Error(`batch: one request of ${size} bytes is over the limit of ${maxBytes}`);
    if (current.length >= maxRequests || bytes + size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(request);
    bytes += size;
  }
  if (current.length) batches.push(current);
  return batches;
}

/**
 * The longest result line memfade reads: 4 MiB. A reply is bounded by its `max_tokens` (a few
 * thousand tokens: tens of kilobytes), so a longer line is no reply memfade asked for; read whole,
 * one line larger than a worker's heap would end the worker on every attempt, and with it every
 * result of the file after that line.
 */
export const MAX_RESULT_LINE_BYTES = 4 * 2 ** 20;

/** How much of an over-long line is kept: enough for the custom id both providers put first. */
const HEAD_BYTES = 4096;

/** A line over the limit: its size and its first bytes, the rest dropped as it arrived. */
export interface OversizedLine {
  bytes: number;
  head: string;
}

/**
 * Lines of a byte stream, each decoded as UTF-8 once it is whole: never the whole body in memory,
 * and linear in the body's size however long a line is. A line's bytes are kept as they arrived
 * and joined once (0x0A never occurs inside a UTF-8 sequence, so splitting bytes is safe);
 * appending to one string or buffer and searching it again for each chunk, as the SDKs' decoders
 * do, is quadratic in a line's length: a results file of 1.5 MB lines took 20-35 s to read. A line
 * over `maxBytes` comes back as an OversizedLine, having never been held.
 */
export async function* lines(
  stream: AsyncIterable<Uint8Array>,
  maxBytes = MAX_RESULT_LINE_BYTES,
): AsyncGenerator<string | OversizedLine> {
  const decoder = new TextDecoder();
  const join = (pieces: Uint8Array[]) => (pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
  let pieces: Uint8Array[] = [];
  let size = 0;
  /** Set once the line is over the limit. */
  let head: string | undefined;
  const add = (piece: Uint8Array) => {
    size += piece.length;
    if (head !== undefined) return;
    pieces.push(piece);
    if (size > maxBytes) {
      head = decoder.decode(join(pieces).subarray(0, HEAD_BYTES));
      pieces = [];
    }
  };
  const take = (): string | OversizedLine | undefined => {
    const line = head !== undefined ? { bytes: size, head } : decoder.decode(join(pieces)).trim();
    pieces = [];
    size = 0;
    head = undefined;
    return line || undefined;
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      add(chunk.subarray(start, end));
      start = end + 1;
      const line = take();
      if (line) yield line;
    }
    if (start < chunk.length) add(chunk.subarray(start));
  }
  const rest = take();
  if (rest) yield rest;
}

/**
 * A results file's body as results: each line parsed by `parse`. A line over MAX_RESULT_LINE_BYTES
 * is errored and retryable (the next round asks again) under the custom id its first bytes name;
 * one that names none is skipped, and its request ends as one the batch returned no result for.
 */
export async function* resultLines(
  body: AsyncIterable<Uint8Array>,
  provider: 'anthropic' | 'openai',
  parse: (line: unknown) => BatchResult,
): AsyncGenerator<BatchResult> {
  for await (const line of lines(body)) {
    if (typeof line === 'string') {
      yield parse(JSON.parse(line));
      continue;
    }
    const customId = /"custom_id"\s*:\s*"([a-zA-Z0-9_-]{1,64})"/.exec(line.head)?.[1];
    if (!customId) continue;
    yield {
      customId,
      outcome: 'errored',
      retryable: true,
      message: `${provider}: result line of ${line.bytes} bytes, over the ${MAX_RESULT_LINE_BYTES} bytes memfade reads`,
    };
  }
}
