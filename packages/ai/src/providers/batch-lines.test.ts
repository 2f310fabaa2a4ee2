import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrompt } from '../prompts/build-prompt.js';
import { JSON_SCHEMAS } from '../schemas.js';
import { AnthropicBatchClient } from './anthropic-batch-client.js';
import {
  type BatchClient,
  type BatchRequest,
  batchCustomId,
  batchRunTag,
  lines,
  MAX_RESULT_LINE_BYTES,
  type OversizedLine,
  parseBatchCustomId,
  splitIntoBatches,
} from './batch-client.js';
import { OpenAIBatchClient } from './openai-batch-client.js';

/**
 * How requests are split into batches and named (splitIntoBatches, custom ids), how results files
 * are split into lines (lines()), and both clients reading very long lines.
 */

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function all<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const line of stream) out.push(line);
  return out;
}

describe('lines()', () => {
  it('joins lines split across chunks, a multi-byte character split between two chunks included', async () => {
    const bytes = new TextEncoder().encode('{"a":"记忆"}\r\n\n{"b":1}');
    // '记' is three bytes: cut after its first.
    const cut = bytes.indexOf(0xe8) + 1;
    const split = await all(lines(chunks(bytes.subarray(0, cut), bytes.subarray(cut))));
    expect(split).toEqual(['{"a":"记忆"}', '{"b":1}']);
    expect(await all(lines(chunks('x', 'y', '\n', 'z\n')))).toEqual(['xy', 'z']);
    expect(await all(lines(chunks()))).toEqual([]);
  });

  it('reads a line of many chunks whole, and the lines after it', async () => {
    const piece = 'x'.repeat(16 * 1024);
    const long = Array.from({ length: 192 }, () => piece);
    const read = await all(lines(chunks('{"p":"', ...long, '"}\n{"n":2}\n')));
    expect(read).toHaveLength(2);
    expect(read[0]).toHaveLength(3 * 1024 * 1024 + 8);
    expect(read[1]).toBe('{"n":2}');
  });

  it('gives a line over the limit as its size and first bytes, never held whole, and reads on', async () => {
    const long = Array.from({ length: 100 }, () => 'x'.repeat(1000));
    const read = await all(lines(chunks('{"custom_id":"a1","p":"', ...long, '"}\n{"n":2}\n'), 10_000));
    expect(read).toEqual([
      { bytes: 100_000 + 25, head: expect.stringMatching(/^{"custom_id":"a1","p":"x+$/) },
      '{"n":2}',
    ]);
    expect((read[0] as OversizedLine).head.length).toBe(4096);
  });
});

const LABEL = { runId: 'nightly-2026-11-26', round: 0 };

function requests(n: number): BatchRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    customId: batchCustomId(LABEL, `r${i}`),
    prompt: buildPrompt('v1', {
      memoryId: `m${i}`,
      language: 'en',
      personality: 'Personality: warm and curious',
      roleCard: { userId: 'u1' },
      text: `user: I walked by the river with Olivia today and we talked about her new job. (${i})`,
      targetLength: { min: 10, max: 40 },
    }),
    schema: JSON_SCHEMAS.v1,
  }));
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());

const options = { timeoutMs: 10_000, maxTokens: 2_000 };
const CLIENTS: Record<'anthropic' | 'openai', () => BatchClient> = {
  anthropic: () =>
    new AnthropicBatchClient({
      ...options,
      apiKey: 'sk-ant-test',
      model: 'claude-test',
      baseURL: emulator.url,
    }),
  openai: () =>
    new OpenAIBatchClient({
      ...options,
      apiKey: 'sk-test',
      model: 'gpt-test',
      baseURL: `${emulator.url}/v1`,
      responseFormat: 'json_schema',
    }),
};

describe.each(['anthropic', 'openai'] as const)('%s batch client', (name) => {
  it('reads results lines padded by megabytes (a property it does not know) as it reads plain ones', async () => {
    const client = CLIENTS[name]();
    const { batchId } = await client.submit(requests(6), LABEL);
    emulator.batches.shuffle = false;
    emulator.batches.linePadding = 0;
    const plain = [];
    for await (const result of client.results(batchId)) plain.push(result);
    const before = emulator.batches.resultBytes.total;
    emulator.batches.linePadding = 3_000_000;
    const padded = [];
    for await (const result of client.results(batchId)) padded.push(result);
    emulator.batches.linePadding = 0;
    expect(padded).toEqual(plain);
    expect(plain.every((r) => r.outcome === 'succeeded')).toBe(true);
    // The padded file was served whole: 6 lines of 3 MB of filler each, and their own bytes.
    expect(emulator.batches.resultBytes.total - before).toBeGreaterThan(6 * 3_000_000);
  });

  it('errs a line longer than it reads, retryable, under its custom id, and reads the lines after it', async () => {
    const client = CLIENTS[name]();
    const sent = requests(4);
    const { batchId } = await client.submit(sent, LABEL);
    const huge = sent[1]!.customId;
    emulator.batches.linePadding = (customId) => (customId === huge ? MAX_RESULT_LINE_BYTES + 2_000_000 : 0);
    const read = [];
    for await (const result of client.results(batchId)) read.push(result);
    emulator.batches.linePadding = 0;
    expect(read.find((r) => r.customId === huge)).toEqual({
      customId: huge,
      outcome: 'errored',
      retryable: true,
      message: expect.stringMatching(
        new RegExp(`^${name}: result line of \\d+ bytes, over the 4194304 bytes`),
      ),
    });
    expect(read.filter((r) => r.outcome === 'succeeded')).toHaveLength(3);
  });
});

describe('splitting requests into batches', () => {
  const client = CLIENTS.anthropic;

  it('splits by count under the smaller of the provider limit and the configured maximum', () => {
    const sent = requests(5);
    const c = client();
    const sizes = (max?: number) =>
      splitIntoBatches(sent, (r) => c.requestBytes(r), c.limits, max ? { maxRequests: max } : {}).map(
        (b) => b.length,
      );
    expect(sizes(2)).toEqual([2, 2, 1]);
    expect(sizes()).toEqual([5]);
    expect(sizes(1_000_000)).toEqual([5]);
    expect(
      splitIntoBatches(sent, () => 1, { maxRequests: 3, maxBytes: 100 }, { maxRequests: 10 }).map(
        (b) => b.length,
      ),
    ).toEqual([3, 2]);
  });

  it('splits by serialized size, in order, and refuses a request larger than a batch may be', () => {
    const sent = requests(4);
    const c = client();
    const size = (r: BatchRequest) => c.requestBytes(r);
    const two = size(sent[0]!) + size(sent[1]!);
    const batches = splitIntoBatches(sent, size, c.limits, { maxBytes: two });
    expect(batches.flat()).toEqual(sent);
    for (const batch of batches) expect(batch.reduce((sum, r) => sum + size(r), 0)).toBeLessThanOrEqual(two);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(() => splitIntoBatches(sent, size, c.limits, { maxBytes: 10 })).toThrow(/over the limit/);
  });

  it('measures a request as the provider serializes it', async () => {
    const c = client();
    const [one] = requests(1);
    await c.submit([one!], LABEL);
    const params = emulator.requests.at(-1)!.body;
    expect(c.requestBytes(one!)).toBe(
      Buffer.byteLength(JSON.stringify({ custom_id: one!.customId, params })) + 1,
    );
  });
});

describe('custom ids', () => {
  it('name their run and round, within the providers rule, and parse back', () => {
    const id = batchCustomId({ runId: 'run-now-2026-11-23T03-00-00-000Z', round: 3 }, 'rec_0123456789abcdef');
    expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(parseBatchCustomId(id)).toEqual({
      runTag: batchRunTag('run-now-2026-11-23T03-00-00-000Z'),
      round: 3,
      key: 'rec_0123456789abcdef',
    });
    expect(parseBatchCustomId('someone-else')).toBeUndefined();
    expect(() => batchCustomId(LABEL, 'x'.repeat(60))).toThrow(/64/);
    expect(() => batchCustomId(LABEL, 'a-b')).toThrow();
  });
});
