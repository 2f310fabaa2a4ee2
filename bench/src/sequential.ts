import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCompressor, createEmbedder } from '@memfade/ai';
import { defaultConfig, type MemfadeConfig, openOperations } from '@memfade/app';
import {
  detectLanguage,
  formatMemoryForPrompt,
  formatPersonality,
  type Memory,
  measureLength,
  parseRoleCard,
  type RoleCard,
  rawText,
  transitionsDue,
} from '@memfade/core';
import { createLogger } from '@memfade/runtime';
import type { LlmEmulator } from '@memfade/testing';
import { createVectorStore } from '@memfade/vector';
import { seed } from './dataset.js';

export interface SequentialResult {
  latencyMs: number;
  memories: number;
  seconds: number;
  perSecond: number;
}

/**
 * Seed 003's Scheduler.processUserMemories, faithfully: for each user, load the role card and all
 * memories; for each due memory, in turn: compress (one model call), update the memory, re-index
 * it in the vector store (one write per memory). No queue, no concurrency.
 */
export async function benchmarkSequential(
  base: MemfadeConfig,
  emulator: LlmEmulator,
  options: { latencyMs: number; memories: number; users: number },
): Promise<SequentialResult> {
  const tag = `seq-${Date.now().toString(36)}`;
  const config = defaultConfig({ ...base, mongodbDb: tag, queuePrefix: tag });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  const vectorDir = join(tmpdir(), `memfade-bench-${tag}`);
  const compressor = createCompressor({
    provider: 'anthropic',
    apiKey: 'bench',
    model: 'emulated',
    baseURL: emulator.url,
    timeoutMs: 60_000,
    maxTokens: 2_000,
  });
  const embedder = createEmbedder({ embedder: 'hashing', dimensions: 256 });
  const vectors = await createVectorStore({
    kind: 'lancedb',
    dir: vectorDir,
    dimensions: 256,
    embeddingModel: embedder.model,
  });
  emulator.setRule(options.latencyMs > 0 ? () => ({ kind: 'slow', delayMs: options.latencyMs }) : undefined);
  try {
    const now = new Date();
    await seed(operations.models, {
      memories: options.memories,
      users: options.users,
      now,
      ages: 'dueForV1',
    });
    const started = performance.now();
    const users = (await operations.models.memories.distinct('userId')) as string[];
    for (const userId of users) {
      const card: RoleCard = parseRoleCard(await operations.store.loadRoleCard(userId), '-', userId);
      const memories = (await operations.models.memories.find({ userId }).lean()) as unknown as Memory[];
      for (const memory of memories) {
        const [target] = transitionsDue(
          memory.meta.compressionStage,
          memory.meta.createdAt,
          now,
          config.policy,
        );
        if (target !== 'v1') continue;
        const language = detectLanguage(rawText(memory.content.raw));
        const text = formatMemoryForPrompt(memory, language);
        const length = measureLength(text);
        const reply = await compressor.compressV1({
          memoryId: memory.memoryId,
          language,
          personality: formatPersonality(card, language),
          roleCard: card,
          text,
          targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
        });
        await operations.models.memories.updateOne(
          { memoryId: memory.memoryId },
          { $set: { 'compression.v1': reply.fields, 'meta.compressionStage': 'v1' } },
          { strict: false },
        );
        const [vector] = await embedder.embed([reply.fields.compressedContent]);
        await vectors.upsert([
          {
            id: memory.memoryId,
            userId,
            partnerId: memory.partnerId,
            stage: 'v1',
            text: reply.fields.compressedContent,
            vector: vector!,
            embeddingModel: embedder.model,
            // Seed 003 keeps no revision; one writer at a time, so any constant does.
            rev: 0,
            updatedAt: new Date(),
          },
        ]);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      latencyMs: options.latencyMs,
      memories: options.memories,
      seconds,
      perSecond: options.memories / seconds,
    };
  } finally {
    emulator.setRule(undefined);
    await vectors.close();
    await operations.close();
    await rm(vectorDir, { recursive: true, force: true });
  }
}
