import { measureLength } from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildPrompt } from '../prompts/build-prompt.js';
import { JSON_SCHEMAS } from '../schemas.js';
import { AnthropicBatchClient } from './anthropic-batch-client.js';
import { batchCustomId, batchRunTag } from './batch-client.js';
import { OpenAIBatchClient } from './openai-batch-client.js';

// A submit that dies between OpenAI's upload and the batch's creation leaves an input file that
// no batch names: forget finds it by the run's file names (docs/design.md invariant 8).
let emulator: LlmEmulator;
let sdk: OpenAI;
let client: OpenAIBatchClient;

beforeAll(async () => {
  emulator = await startLlmEmulator();
  const options = { apiKey: 'sk-test', model: 'gpt-test', baseURL: `${emulator.url}/v1`, timeoutMs: 5_000 };
  sdk = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL });
  client = new OpenAIBatchClient({ ...options, maxTokens: 2_000, responseFormat: 'json_schema' });
});
afterAll(async () => emulator.close());

const TEXT = 'user: 我下周二要去杭州参加小王的婚礼，他邀请我当伴郎。';
const request = (runId: string) => ({
  customId: batchCustomId({ runId, round: 0 }, 'r0'),
  prompt: buildPrompt('v1', {
    memoryId: 'm0',
    language: 'zh',
    personality: '性格: 温柔',
    roleCard: { userId: 'u1' },
    text: TEXT,
    targetLength: { min: 5, max: Math.floor(measureLength(TEXT) * 0.6) },
  }),
  schema: JSON_SCHEMAS.v1,
});

/** An upload named as the run's submit names it, with no batch created after it (the worker died). */
const orphanOf = async (runId: string, round: number) =>
  (
    await sdk.files.create({
      file: await toFile(Buffer.from(`${TEXT}\n`), `memfade-${batchRunTag(runId)}-${round}.jsonl`),
      purpose: 'batch',
    })
  ).id;

const fileIds = async () => (await sdk.files.list({ purpose: 'batch' })).data.map((f) => f.id);

it("deletes a run's uploads that no batch reads, and nothing a batch reads or another run uploaded", async () => {
  const run = 'nightly-2026-11-24';
  const other = 'nightly-2026-11-25';
  const { batchId } = await client.submit([request(run)], { runId: run, round: 0 });
  const read = (await sdk.batches.retrieve(batchId)).input_file_id;
  const orphan = await orphanOf(run, 1);
  const othersUpload = await orphanOf(other, 0);

  expect(await client.deleteOrphanFiles([run])).toEqual([`unused input file ${orphan}`]);
  const left = await fileIds();
  expect(left).not.toContain(orphan);
  expect(left).toEqual(expect.arrayContaining([read, othersUpload]));
  // Nothing left to find: a second forget removes nothing.
  expect(await client.deleteOrphanFiles([run])).toEqual([]);
});

it('Anthropic keeps requests in the batch itself: nothing to sweep', async () => {
  const anthropic = new AnthropicBatchClient({
    apiKey: 'sk-ant-test',
    model: 'claude-test',
    baseURL: emulator.url,
    timeoutMs: 5_000,
    maxTokens: 2_000,
  });
  expect(await anthropic.deleteOrphanFiles(['nightly-2026-11-24'])).toEqual([]);
});
