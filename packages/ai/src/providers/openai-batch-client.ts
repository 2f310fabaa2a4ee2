import type { BatchDeletion } from '@memfade/core';
import type OpenAI from 'openai';
import type {
  BatchClient,
  BatchCounts,
  BatchLabel,
  BatchLimits,
  BatchRequest,
  BatchResult,
  BatchState,
  BatchStatus,
  ListedBatch,
  SubmittedBatch,
} from './batch-client.js';
import { batchRunTag, checkBatch, resultLines, unlessGone } from './batch-client.js';
import { classifyModelError } from './errors.js';
import { lazily } from './model-client.js';
import { type OpenAIOptions, openaiParams, openaiSdk, openaiTurn } from './openai-client.js';

const ENDPOINT = '/v1/chat/completions';
/** Metadata keys carrying the label: the way back to a batch after a crash. */
const META = { runId: 'memfade_run_id', round: 'memfade_round', runTag: 'memfade_run_tag' } as const;

const STATES: Record<OpenAI.Batches.Batch['status'], BatchState> = {
  validating: 'in_progress',
  in_progress: 'in_progress',
  finalizing: 'in_progress',
  cancelling: 'canceling',
  completed: 'ended',
  expired: 'ended',
  cancelled: 'ended',
  failed: 'ended',
};

/** Per-request error codes of the error file that are not errors of the request itself. */
const NOT_RUN: Record<string, 'expired' | 'canceled'> = {
  batch_expired: 'expired',
  batch_cancelled: 'canceled',
};
const TRANSIENT_CODES = new Set(['request_timeout', 'rate_limit_exceeded', 'server_error']);

/**
 * The OpenAI Batch API: a JSONL input file of up to 50,000 requests or 200 MB (decimal megabytes,
 * the smaller reading), `completion_window: 24h`, results in an output file and an error file. Each
 * line's `body` is exactly the sync Chat Completions body (openaiParams). The label goes into the
 * batch's metadata. Servers with the same API (DashScope) work through `baseURL`; servers without
 * `/v1/batches` (vLLM's server, Ollama, DeepSeek) must stay on sync calls.
 */
export class OpenAIBatchClient implements BatchClient {
  readonly provider = 'openai';
  readonly model: string;
  readonly limits: BatchLimits = { maxRequests: 50_000, maxBytes: 200_000_000 };
  private readonly sdk = lazily(() => openaiSdk(this.options));

  constructor(private readonly options: OpenAIOptions) {
    this.model = options.model;
  }

  private line(request: BatchRequest): string {
    return JSON.stringify({
      custom_id: request.customId,
      method: 'POST',
      url: ENDPOINT,
      body: openaiParams(this.options, request.prompt, request.schema, request.repair),
    });
  }

  /** The input file's line and its newline. */
  requestBytes(request: BatchRequest): number {
    return Buffer.byteLength(this.line(request)) + 1;
  }

  async submit(requests: BatchRequest[], label: BatchLabel): Promise<SubmittedBatch> {
    checkBatch(requests, this.limits, (r) => this.requestBytes(r));
    const jsonl = `${requests.map((r) => this.line(r)).join('\n')}\n`;
    const file = await this.call(async () =>
      (await this.sdk()).files.create({
        file: await (await import('openai')).toFile(
          Buffer.from(jsonl),
          `${filePrefix(label.runId)}${label.round}.jsonl`,
        ),
        purpose: 'batch',
      }),
    );
    const batch = await this.call(async () =>
      (await this.sdk()).batches.create({
        input_file_id: file.id,
        endpoint: ENDPOINT,
        completion_window: '24h',
        metadata: {
          [META.runId]: label.runId,
          [META.round]: String(label.round),
          [META.runTag]: batchRunTag(label.runId),
        },
      }),
    );
    return { batchId: batch.id, submittedAt: new Date(batch.created_at * 1000) };
  }

  /**
   * The runs' input files (named by filePrefix) that no batch of theirs reads: a submit that died
   * between the upload and the batch's creation (docs/design.md invariant 8). One listing of the
   * files and one walk of the batches since the oldest of them, however many runs. A submit running
   * at this moment may lose its fresh upload: its create then fails, and the job's retry uploads again.
   */
  async deleteOrphanFiles(runIds: string[]): Promise<string[]> {
    const prefixes = runIds.map(filePrefix);
    const uploads: OpenAI.Files.FileObject[] = [];
    for await (const file of await this.call(async () => (await this.sdk()).files.list({ purpose: 'batch' })))
      if (prefixes.some((prefix) => file.filename.startsWith(prefix))) uploads.push(file);
    if (uploads.length === 0) return [];
    const oldest = Math.min(...uploads.map((f) => f.created_at));
    const read = new Set<string>();
    // Newest first: the first batch created before the oldest upload ends the walk.
    for await (const batch of await this.call(async () => (await this.sdk()).batches.list({ limit: 100 }))) {
      if (batch.created_at < oldest) break;
      read.add(batch.input_file_id);
    }
    const removed: string[] = [];
    for (const file of uploads) {
      if (read.has(file.id)) continue;
      const deleted = await unlessGone(async () => (await this.sdk()).files.delete(file.id), 'openai');
      removed.push(`unused input file ${file.id}${deleted ? '' : ' (already gone)'}`);
    }
    return removed;
  }

  async status(batchId: string): Promise<BatchStatus> {
    const batch = await this.call(async () => (await this.sdk()).batches.retrieve(batchId));
    const endedAt = batch.completed_at ?? batch.expired_at ?? batch.cancelled_at ?? batch.failed_at;
    const failure =
      batch.status === 'failed'
        ? (batch.errors?.data ?? [])
            .map((e) => e.code)
            .filter((code): code is string => typeof code === 'string' && /^[\w.-]{1,64}$/.test(code))
            .join(', ') || 'failed'
        : undefined;
    return {
      state: STATES[batch.status],
      counts: counts(batch),
      createdAt: new Date(batch.created_at * 1000),
      ...(endedAt ? { endedAt: new Date(endedAt * 1000) } : {}),
      ...(failure ? { failure } : {}),
    };
  }

  async *list(options: { createdAfter: Date }): AsyncIterable<ListedBatch> {
    // Newest first: the first batch created before the cut-off ends the walk. OpenAI gives whole
    // seconds, so the cut-off is taken down to its second (a batch of that second is kept).
    const cutOff = Math.floor(options.createdAfter.getTime() / 1000) * 1000;
    let page = await this.call(async () => (await this.sdk()).batches.list({ limit: 100 }));
    while (true) {
      for (const batch of page.data) {
        const createdAt = new Date(batch.created_at * 1000);
        if (createdAt.getTime() < cutOff) return;
        const listed: ListedBatch = {
          batchId: batch.id,
          createdAt,
          state: STATES[batch.status],
          requestCount: batch.request_counts?.total ?? 0,
        };
        const meta = batch.metadata ?? {};
        const round = Number(meta[META.round]);
        if (meta[META.runId] && Number.isInteger(round)) {
          listed.label = { runId: meta[META.runId]!, round };
          listed.tag = { runTag: batchRunTag(meta[META.runId]!), round };
        }
        yield listed;
      }
      if (!page.hasNextPage()) return;
      const current = page;
      page = await this.call(() => current.getNextPage());
    }
  }

  async cancel(batchId: string): Promise<void> {
    await this.call(async () => (await this.sdk()).batches.cancel(batchId));
  }

  async *results(batchId: string): AsyncIterable<BatchResult> {
    const batch = await this.call(async () => (await this.sdk()).batches.retrieve(batchId));
    if (STATES[batch.status] !== 'ended') {
      throw new Error(`openai: batch ${batchId} has not ended (${batch.status})`);
    }
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const response = await this.call(async () => (await this.sdk()).files.content(fileId));
      if (!response.body) continue;
      try {
        yield* resultLines(response.body, 'openai', (line) => toResult(line as OutputLine));
      } catch (error) {
        throw classifyModelError(error, 'openai');
      }
    }
  }

  /**
   * A batch's text lives in its files: the input file (the prompts), the output file (the replies)
   * and the error file. The batch object itself stays (OpenAI deletes none; it holds ids and the
   * run's label, no text). A batch not ended is canceled and its files are left until it has: the
   * cancel still writes the output and error files of what it had processed.
   */
  async delete(batchId: string): Promise<BatchDeletion> {
    const batch = await unlessGone(async () => (await this.sdk()).batches.retrieve(batchId), 'openai');
    if (!batch) return { removed: [`batch ${batchId} (not found: no files to delete)`] };
    if (STATES[batch.status] !== 'ended') {
      if (batch.status !== 'cancelling') await this.cancel(batchId);
      return {
        removed: [],
        pending: `batch ${batchId} still running: canceled; its files can be deleted once it has ended`,
      };
    }
    const files = [
      ['input', batch.input_file_id],
      ['output', batch.output_file_id],
      ['error', batch.error_file_id],
    ] as const;
    const removed: string[] = [];
    for (const [kind, fileId] of files) {
      if (!fileId) continue;
      const deleted = await unlessGone(async () => (await this.sdk()).files.delete(fileId), 'openai');
      removed.push(`${kind} file ${fileId}${deleted ? '' : ' (already gone)'}`);
    }
    return { removed };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw classifyModelError(error, 'openai');
    }
  }
}

/** The start of a run's input file names: found again by it when a submit died after the upload. */
const filePrefix = (runId: string) => `memfade-${batchRunTag(runId)}-`;

function counts(batch: OpenAI.Batches.Batch): BatchCounts {
  const total = batch.request_counts?.total ?? 0;
  const succeeded = batch.request_counts?.completed ?? 0;
  const errored = batch.request_counts?.failed ?? 0;
  const rest = Math.max(0, total - succeeded - errored);
  const none = { processing: 0, succeeded, errored, canceled: 0, expired: 0 };
  switch (batch.status) {
    case 'expired':
      return { ...none, expired: rest };
    case 'cancelled':
      return { ...none, canceled: rest };
    case 'failed':
      return { ...none, errored: total };
    case 'completed':
      return none;
    default:
      return { ...none, processing: rest };
  }
}

/** An identifier from a provider's error, never its free text. */
function code(value: unknown): string | undefined {
  return typeof value === 'string' && /^[\w.-]{1,64}$/.test(value) ? value : undefined;
}

interface OutputLine {
  custom_id: string;
  response?: { status_code: number; body?: unknown } | null;
  error?: { code?: unknown; message?: unknown } | null;
}

function toResult(line: OutputLine): BatchResult {
  const customId = line.custom_id;
  if (line.error) {
    const errorCode = code(line.error.code) ?? 'unknown_error';
    const notRun = NOT_RUN[errorCode];
    if (notRun) return { customId, outcome: notRun, retryable: true, message: `openai: request ${notRun}` };
    return {
      customId,
      outcome: 'errored',
      retryable: TRANSIENT_CODES.has(errorCode),
      message: `openai: request errored: ${errorCode}`,
    };
  }
  const status = line.response?.status_code ?? 0;
  if (status === 200) {
    return { customId, outcome: 'succeeded', turn: openaiTurn(line.response!.body as OpenAI.ChatCompletion) };
  }
  const body = line.response?.body as { error?: { code?: unknown; type?: unknown } } | undefined;
  const kind = code(body?.error?.code) ?? code(body?.error?.type);
  return {
    customId,
    outcome: 'errored',
    retryable: status === 408 || status === 409 || status === 429 || status >= 500,
    message: `openai: request errored (${status})${kind ? `: ${kind}` : ''}`,
  };
}
