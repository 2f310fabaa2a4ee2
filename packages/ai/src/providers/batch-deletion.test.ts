import Anthropic from '@anthropic-ai/sdk';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildPrompt } from '../prompts/build-prompt.js';
import { JSON_SCHEMAS } from '../schemas.js';
import { AnthropicBatchClient } from './anthropic-batch-client.js';
import { type BatchClient, type BatchRequest, batchCustomId } from './batch-client.js';
import { OpenAIBatchClient } from './openai-batch-client.js';

// docs/design.md invariant 8: the provider's copies of a batch (prompts holding memory text, replies holding
// what was made of it) are deleted on request, through the real SDKs over HTTP.

const LABEL = { runId: 'nightly-2026-11-23', round: 0 };
/** Text only these requests hold: found in what the provider stores exactly while it keeps them. */
const MARK = 'ForgetMeMarker';

function requests(n: number, mark: string): BatchRequest[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `user: ${mark} ${i} walked by the lake with Dou Dou, a five-month-old corgi.\nassistant: Lovely!`;
    const prompt = buildPrompt('v1', {
      memoryId: `m${i}`,
      language: 'en',
      personality: 'Personality: warm',
      roleCard: { userId: 'u1' },
      text,
      targetLength: { min: 20, max: 60 },
    });
    return { customId: batchCustomId(LABEL, `r${i}`), prompt, schema: JSON_SCHEMAS.v1 };
  });
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => {
  emulator.batches.processingMs = 0;
});

const options = { apiKey: 'sk-test', timeoutMs: 5_000, maxTokens: 2_000 };
const CLIENTS: Record<'anthropic' | 'openai', () => BatchClient> = {
  anthropic: () => new AnthropicBatchClient({ ...options, model: 'claude-test', baseURL: emulator.url }),
  openai: () =>
    new OpenAIBatchClient({
      ...options,
      model: 'gpt-test',
      baseURL: `${emulator.url}/v1`,
      responseFormat: 'json_schema',
    }),
};

async function readAll(client: BatchClient, batchId: string): Promise<number> {
  let n = 0;
  for await (const _ of client.results(batchId)) n++;
  return n;
}

describe.each(Object.keys(CLIENTS) as ('anthropic' | 'openai')[])('%s batch deletion', (name) => {
  it("deletes an ended batch's copies: none of its prompts or replies is stored after, and a second call is harmless", async () => {
    const mark = `${MARK}${name}Ended`;
    const client = CLIENTS[name]();
    const { batchId } = await client.submit(requests(3, mark), LABEL);
    expect(await readAll(client, batchId)).toBe(3);
    // The provider holds the prompts and the replies (which quote what the model kept).
    expect(emulator.batches.storedText()).toContain(mark);

    const deletion = await client.delete(batchId);
    expect(deletion.pending).toBeUndefined();
    expect(deletion.removed).toEqual(
      name === 'openai'
        ? [expect.stringMatching(/^input file file-\d+$/), `output file file-out-${batchId}`]
        : [`batch ${batchId} with its requests and results`],
    );
    expect(emulator.batches.storedText()).not.toContain(mark);
    // Its results are gone from the API too.
    await expect(readAll(client, batchId)).rejects.toThrow(/404/);
    const again = await client.delete(batchId);
    expect(again.removed.every((line) => /already gone|not found/.test(line))).toBe(true);
    expect(again.removed).not.toEqual([]);
  });

  it('cancels a batch still running and reports it pending; once it has ended, deletes it', async () => {
    emulator.batches.processingMs = Number.POSITIVE_INFINITY;
    const mark = `${MARK}${name}Running`;
    const client = CLIENTS[name]();
    const { batchId } = await client.submit(requests(3, mark), LABEL);
    emulator.batches.process(batchId, 1);

    const deletion = await client.delete(batchId);
    expect(deletion).toEqual({ removed: [], pending: expect.stringMatching(/still running: canceled/) });
    expect(emulator.batches.list().find((b) => b.id === batchId)?.state).not.toBe('in_progress');
    // Nothing could be deleted yet: the text is still there, and the report says so.
    expect(emulator.batches.storedText()).toContain(mark);

    emulator.batches.settle(batchId);
    expect((await client.delete(batchId)).pending).toBeUndefined();
    expect(emulator.batches.storedText()).not.toContain(mark);
  });
});

describe('the emulated endpoints, as the providers document them', () => {
  it('Anthropic: refuses to delete a batch that has not ended (400); deleted, it is gone (404)', async () => {
    emulator.batches.processingMs = Number.POSITIVE_INFINITY;
    const sdk = new Anthropic({ apiKey: 'sk-test', baseURL: emulator.url, maxRetries: 0 });
    const { batchId } = await CLIENTS.anthropic().submit(requests(1, MARK), LABEL);
    await expect(sdk.messages.batches.delete(batchId)).rejects.toMatchObject({ status: 400 });
    await sdk.messages.batches.cancel(batchId);
    expect(await sdk.messages.batches.delete(batchId)).toEqual({
      id: batchId,
      type: 'message_batch_deleted',
    });
    await expect(sdk.messages.batches.retrieve(batchId)).rejects.toMatchObject({ status: 404 });
  });

  it('OpenAI: deletes a file, whose content is then 404; the batch keeps naming it', async () => {
    const sdk = new OpenAI({ apiKey: 'sk-test', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const { batchId } = await CLIENTS.openai().submit(requests(1, MARK), LABEL);
    const batch = await sdk.batches.retrieve(batchId);
    expect(await sdk.files.delete(batch.output_file_id!)).toEqual({
      id: batch.output_file_id,
      object: 'file',
      deleted: true,
    });
    await expect(sdk.files.content(batch.output_file_id!)).rejects.toMatchObject({ status: 404 });
    await expect(sdk.files.delete(batch.output_file_id!)).rejects.toMatchObject({ status: 404 });
    expect((await sdk.batches.retrieve(batchId)).output_file_id).toBe(batch.output_file_id);
  });
});
