import {
  type BatchCompressor,
  type BatchDeletion,
  type BatchItem,
  type BatchItemResult,
  type BatchLine,
  type CallCeiling,
  type CompressionRequest,
  type GroupMember,
  isGroup,
  type ModelReply,
  type TargetStage,
  type V1Fields,
  type V2Fields,
} from '@memfade/core';
import { buildGroupPrompt, groupBudget } from '../prompts/group-prompt.js';
import { GROUP_JSON_SCHEMAS, JSON_SCHEMAS } from '../schemas.js';
import {
  type BatchClient,
  type BatchRequest,
  batchCustomId,
  batchRunTag,
  splitIntoBatches,
} from './batch-client.js';
import { memberResults } from './group-results.js';
import type { ModelTurn } from './model-client.js';
import { atCeiling, type ModelCompressor } from './model-compressor.js';

/**
 * Batch mode's model: requests built by the sync ModelCompressor's own prompt() and JSON schema
 * (same stable prefix first, so prompt caching works inside a batch; the same date, time zone and
 * max_tokens), and every result line checked, retried or repaired by its own finish(): one check
 * for both paths, so a truncated or refused line is never stored either.
 */
export class ModelBatchCompressor implements BatchCompressor {
  readonly name: string;
  readonly model: string;
  readonly maxRequests: number;

  constructor(
    private readonly client: BatchClient,
    private readonly sync: ModelCompressor,
  ) {
    this.name = client.provider;
    this.model = client.model;
    this.maxRequests = client.limits.maxRequests;
  }

  customId(label: { runId: string; round: number }, key: string): string {
    return batchCustomId(label, key);
  }

  private toRequest(line: BatchLine): BatchRequest {
    if (isGroup(line)) {
      const [first] = line.members;
      const requests = line.members.map((member) => member.request);
      const prompt = buildGroupPrompt(first!.stage, requests, this.sync.promptOptions);
      return { customId: line.customId, prompt, schema: GROUP_JSON_SCHEMAS[prompt.kind] };
    }
    const prompt = this.sync.prompt(line.stage, line.request);
    return { customId: line.customId, prompt, schema: JSON_SCHEMAS[prompt.kind] };
  }

  split(lines: BatchLine[], maxRequests: number): BatchLine[][] {
    const maximum = maxRequests > 0 ? { maxRequests } : {};
    // Sizes are measured on the request as sent; the split keeps the lines themselves.
    const sized = lines.map((line) => ({ line, bytes: this.client.requestBytes(this.toRequest(line)) }));
    return splitIntoBatches(sized, (s) => s.bytes, this.client.limits, maximum).map((batch) =>
      batch.map((s) => s.line),
    );
  }

  async submit(lines: BatchLine[], label: { runId: string; round: number }): Promise<{ batchId: string }> {
    const { batchId } = await this.client.submit(
      lines.map((line) => this.toRequest(line)),
      label,
    );
    return { batchId };
  }

  fitsOneLine(items: BatchItem[]): boolean {
    const stage = items[0]?.stage;
    if (!stage) return true;
    const requests = items.map((item) => item.request);
    return groupBudget(stage, requests) <= this.sync.maxTokens;
  }

  memberResults(line: BatchItemResult, members: GroupMember[]): BatchItemResult[] {
    return memberResults(line, members);
  }

  async findSubmitted(
    label: { runId: string; round: number },
    since: Date,
    count: number,
    known: string[],
  ): Promise<string | undefined> {
    const runTag = batchRunTag(label.runId);
    for await (const batch of this.client.list({ createdAfter: since })) {
      if (known.includes(batch.batchId) || batch.requestCount !== count) continue;
      // OpenAI batches carry the label; an ended Anthropic batch its custom ids' tag; an Anthropic
      // batch still running only its size and creation time, which is what is left to match on.
      if (batch.label && (batch.label.runId !== label.runId || batch.label.round !== label.round)) continue;
      if (batch.tag && (batch.tag.runTag !== runTag || batch.tag.round !== label.round)) continue;
      return batch.batchId;
    }
    return undefined;
  }

  async status(batchId: string): Promise<{ ended: boolean; failure?: string }> {
    const status = await this.client.status(batchId);
    return { ended: status.state === 'ended', ...(status.failure && { failure: status.failure }) };
  }

  cancel(batchId: string): Promise<void> {
    return this.client.cancel(batchId);
  }

  deleteBatch(batchId: string): Promise<BatchDeletion> {
    return this.client.delete(batchId);
  }

  deleteOrphanFiles(runIds: string[]): Promise<string[]> {
    return this.client.deleteOrphanFiles(runIds);
  }

  async *results(batchId: string): AsyncIterable<BatchItemResult> {
    for await (const result of this.client.results(batchId)) {
      if (result.outcome === 'succeeded')
        yield {
          customId: result.customId,
          outcome: 'succeeded',
          turn: result.turn,
          usage: result.turn.usage,
          ...(result.turn.usageMissing && { usageMissing: true as const }),
        };
      else yield result;
    }
  }

  /** The line costs what the sync call would (at batch prices); its retry and repair are sync calls. */
  ceilings(stage: TargetStage, request: CompressionRequest): CallCeiling[] {
    return this.sync.ceilings(stage, request);
  }

  accept(
    stage: TargetStage,
    request: CompressionRequest,
    turn: unknown,
  ): Promise<ModelReply<V1Fields | V2Fields>> {
    // A line without its usage is the stage's at the line's ceiling, as the run counts it (app
    // batch-results.ts counted: the same ceiling, recorded when the request was prepared).
    const line = turn as ModelTurn;
    const counted = line.usageMissing ? atCeiling(line, this.sync.ceilings(stage, request)[0]!) : line;
    return this.sync.finish(stage, request, counted);
  }
}
