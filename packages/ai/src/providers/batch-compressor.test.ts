import { type CompressionRequest, measureLength } from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBatchCompressor } from '../provider.js';
import { ModelCompressor } from './model-compressor.js';

const TEXT = [
  'user: I finally visited the botanical garden today and the view from the hill was amazing.',
  'assistant: That sounds lovely! What was the best part of the visit?',
  'user: Watching the sunset with Olivia. We brought sandwiches and stayed until it got dark.',
].join('\n');

function request(memoryId: string): CompressionRequest {
  const length = measureLength(TEXT);
  return {
    memoryId,
    language: 'en',
    personality: 'personality: gentle',
    roleCard: { userId: 'u1' },
    text: TEXT,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
  };
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());

describe('ModelBatchCompressor', () => {
  for (const provider of ['anthropic', 'openai'] as const) {
    it(`builds each line's prompt once for the split and the submit that follows it (${provider})`, async () => {
      const settings = { apiKey: 'sk-test', model: 'emulated', timeoutMs: 2_000, maxTokens: 2_000 };
      const model = createBatchCompressor(
        provider === 'anthropic'
          ? { provider, ...settings, baseURL: emulator.url }
          : { provider, ...settings, baseURL: `${emulator.url}/v1`, responseFormat: 'json_schema' },
      )!;
      const label = { runId: `run-${provider}`, round: 0 };
      const lines = ['m1', 'm2', 'm3'].map((id) => ({
        customId: model.customId(label, id),
        stage: 'v1' as const,
        request: request(id),
      }));
      const prompts = vi.spyOn(ModelCompressor.prototype, 'prompt');
      try {
        const [batch] = model.split(lines, 0);
        expect(batch).toHaveLength(3);
        const { batchId } = await model.submit(batch!, label);
        expect(batchId).toBeTruthy();
        // Measured by the split, then sent: one prompt per line (two before, one for each step).
        expect(prompts).toHaveBeenCalledTimes(3);
      } finally {
        prompts.mockRestore();
      }
    });
  }
});
