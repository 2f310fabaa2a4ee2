import type Anthropic from '@anthropic-ai/sdk';
import type { BatchDeletion } from '@memfade/core';
import { type AnthropicOptions, anthropicParams, anthropicSdk, anthropicTurn } from './anthropic-client.js';
import type {
  BatchClient,
  BatchLabel,
  BatchLimits,
  BatchRequest,
  BatchResult,
  BatchStatus,
  ListedBatch,
  SubmittedBatch,
} from './batch-client.js';
import { checkBatch, parseBatchCustomId, resultLines, unlessGone } from './batch-client.js';
import { classifyModelError } from './errors.js';
import { lazily } from './model-client.js';

/** Anthropic's errors worth sending again as they were (the rest refuse the request itself). */
const TRANSIENT = new Set(['api_error', 'overloaded_error', 'rate_limit_error', 'timeout_error']);

/**
 * Anthropic Message Batches: up to 100,000 requests or 256 MB a batch (decimal megabytes, the
 * smaller reading, less room for the `{"requests":[...]}` envelope). Each request's `params` is
 * exactly the sync Messages body (anthropicParams), so the cached prefix is the same and prompt
 * caching applies inside a batch.
 *
 * Labels: a Message Batch has no metadata, so submit() does not send the label anywhere; it lives
 * in the custom ids (batchCustomId). list() reads it back from the first result line of an ended
 * batch; an unended batch is known by its creation time and request count only.
 */
export class AnthropicBatchClient implements BatchClient {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly limits: BatchLimits = { maxRequests: 100_000, maxBytes: 256_000_000 - 1_000 };
  private readonly sdk = lazily(() => anthropicSdk(this.options));

  constructor(private readonly options: AnthropicOptions) {
    this.model = options.model;
  }

  private line(request: BatchRequest): Anthropic.Messages.BatchCreateParams.Request {
    return {
      custom_id: request.customId,
      params: anthropicParams(this.options, request.prompt, request.schema, request.repair),
    };
  }

  /** The request as it appears in the body, and the comma after it. */
  requestBytes(request: BatchRequest): number {
    return Buffer.byteLength(JSON.stringify(this.line(request))) + 1;
  }

  async submit(requests: BatchRequest[], _label: BatchLabel): Promise<SubmittedBatch> {
    checkBatch(requests, this.limits, (r) => this.requestBytes(r));
    const batch = await this.call(async () =>
      (await this.sdk()).messages.batches.create({ requests: requests.map((r) => this.line(r)) }),
    );
    return { batchId: batch.id, submittedAt: new Date(batch.created_at) };
  }

  async status(batchId: string): Promise<BatchStatus> {
    const batch = await this.call(async () => (await this.sdk()).messages.batches.retrieve(batchId));
    return {
      state: batch.processing_status,
      counts: { ...batch.request_counts },
      createdAt: new Date(batch.created_at),
      ...(batch.ended_at ? { endedAt: new Date(batch.ended_at) } : {}),
    };
  }

  async *list(options: { createdAfter: Date }): AsyncIterable<ListedBatch> {
    // Newest first: the first batch created before the cut-off ends the walk, unread pages stay unread.
    let page = await this.call(async () => (await this.sdk()).messages.batches.list({ limit: 100 }));
    while (true) {
      for (const batch of page.data) {
        const createdAt = new Date(batch.created_at);
        if (createdAt < options.createdAfter) return;
        const counts = batch.request_counts;
        const listed: ListedBatch = {
          batchId: batch.id,
          createdAt,
          state: batch.processing_status,
          requestCount:
            counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired,
        };
        if (batch.processing_status === 'ended' && batch.results_url) {
          const tag = await this.firstTag(batch.id);
          if (tag) listed.tag = tag;
        }
        yield listed;
      }
      if (!page.hasNextPage()) return;
      const current = page;
      page = await this.call(() => current.getNextPage());
    }
  }

  /** The run tag and round in the custom id of an ended batch's first result line. */
  private async firstTag(batchId: string): Promise<ListedBatch['tag']> {
    for await (const result of this.results(batchId)) {
      const parsed = parseBatchCustomId(result.customId);
      // Leaving the loop ends the stream: the rest of the file is not downloaded.
      return parsed && { runTag: parsed.runTag, round: parsed.round };
    }
    return undefined;
  }

  async cancel(batchId: string): Promise<void> {
    await this.call(async () => (await this.sdk()).messages.batches.cancel(batchId));
  }

  /**
   * Deleting a Message Batch deletes its requests and results with it. Anthropic refuses to delete a
   * batch that has not ended, so one still in progress is canceled first (its unprocessed requests
   * end as canceled) and reported pending.
   */
  async delete(batchId: string): Promise<BatchDeletion> {
    const batch = await unlessGone(
      async () => (await this.sdk()).messages.batches.retrieve(batchId),
      'anthropic',
    );
    if (!batch) return { removed: [`batch ${batchId} (already gone)`] };
    if (batch.processing_status !== 'ended') {
      if (batch.processing_status === 'in_progress') await this.cancel(batchId);
      return {
        removed: [],
        pending: `batch ${batchId} still running: canceled; it can be deleted once it has ended`,
      };
    }
    const deleted = await unlessGone(
      async () => (await this.sdk()).messages.batches.delete(batchId),
      'anthropic',
    );
    return { removed: [`batch ${batchId} with its requests and results${deleted ? '' : ' (already gone)'}`] };
  }

  /** A Message Batch carries its requests itself: there is no upload to leave behind. */
  async deleteOrphanFiles(_runIds: string[]): Promise<string[]> {
    return [];
  }

  /**
   * The request `messages.batches.results` makes, read with memfade's line splitter (resultLines) and
   * not the SDK's decoder, which copies and scans a line again for each chunk of it: quadratic in
   * a line's length (a 285 MB file of 1.5 MB lines: 34 s against 2 s).
   */
  async *results(batchId: string): AsyncIterable<BatchResult> {
    const response = await this.call(async () => {
      const batch = await (await this.sdk()).messages.batches.retrieve(batchId);
      if (!batch.results_url)
        throw new Error(`anthropic: batch ${batchId} has no results (${batch.processing_status})`);
      return (await this.sdk())
        .get(batch.results_url, {
          headers: { Accept: 'application/binary' },
          stream: true,
          __binaryResponse: true,
        })
        .asResponse();
    });
    if (!response.body) throw new Error(`anthropic: batch ${batchId}: results without a body`);
    try {
      yield* resultLines(response.body, 'anthropic', (line) =>
        toResult(line as Anthropic.Messages.MessageBatchIndividualResponse),
      );
    } catch (error) {
      throw classifyModelError(error, 'anthropic');
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw classifyModelError(error, 'anthropic');
    }
  }
}

function toResult(line: Anthropic.Messages.MessageBatchIndividualResponse): BatchResult {
  const customId = line.custom_id;
  const result = line.result;
  switch (result.type) {
    case 'succeeded':
      return { customId, outcome: 'succeeded', turn: anthropicTurn(result.message) };
    case 'errored': {
      const type = result.error?.error?.type;
      const kind = typeof type === 'string' && /^[a-z_]{1,64}$/.test(type) ? type : 'unknown_error';
      return {
        customId,
        outcome: 'errored',
        retryable: TRANSIENT.has(kind),
        message: `anthropic: request errored: ${kind}`,
      };
    }
    default:
      return {
        customId,
        outcome: result.type,
        retryable: true,
        message: `anthropic: request ${result.type}`,
      };
  }
}
