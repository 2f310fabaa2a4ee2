import { OfflineCompressor } from '@memfade/ai';
import { compressMemory, type Language, rng, stagePolicy } from '@memfade/core';
import { InMemoryMemoryStore } from '../memory-store.js';
import { type Chat, drawChat, SHAPES, type Shape } from './chats.js';

/** A chat the pipeline did not bring to a core memory: refused (by which check), or written empty. */
export interface FuzzFailure {
  chat: Chat;
  reason: string;
}

export interface FuzzReport {
  seed: number;
  chats: number;
  failures: FuzzFailure[];
}

const DAY_MS = 86_400_000;

/**
 * `perShape` chats of each shape and language from `seed`, each through the worker's own pipeline
 * (compressMemory: the offline compressor, its faithfulness gate, the output and retention checks) on
 * an in-memory store, from raw to V2 in one call. Every one must reach a core memory: a stage refused
 * or empty is refused again every night, so the memory is never compressed.
 */
export async function fuzzChats(
  seed: number,
  perShape: number,
  shapes: Shape[] = SHAPES,
): Promise<FuzzReport> {
  const random = rng(seed).next;
  const failures: FuzzFailure[] = [];
  let chats = 0;
  for (const shape of shapes)
    for (const language of ['zh', 'en'] as Language[])
      for (let k = 0; k < perShape; k++) {
        const chat = drawChat(random, shape, language);
        chats++;
        const reason = await throughPipeline(chat);
        if (reason) failures.push({ chat, reason });
      }
  return { seed, chats, failures };
}

/** One chat from raw to V2 in one call; why it did not reach a core memory, or undefined. */
export async function throughPipeline(chat: Pick<Chat, 'raw' | 'card'>): Promise<string | undefined> {
  const policy = stagePolicy();
  const createdAt = new Date('2026-11-01T10:00:00Z');
  const now = () => new Date(createdAt.getTime() + (policy.v2AfterDays + 1) * DAY_MS);
  const store = new InMemoryMemoryStore();
  store.putRoleCard({ userId: 'u', ...chat.card });
  const meta = { createdAt, compressionStage: 'raw' as const };
  store.putMemory({ memoryId: 'm', userId: 'u', partnerId: 'p', content: { raw: chat.raw }, meta, rev: 0 });
  try {
    await compressMemory('m', 'v2', 'm', { store, compressor: new OfflineCompressor(), policy, now });
  } catch (error) {
    return String(error);
  }
  const doc = (await store.loadMemory('m')) as { compression?: { v2?: { coreMemory?: string } } } | null;
  return doc?.compression?.v2?.coreMemory ? undefined : 'no core memory';
}

/** A failure as one line: its shape, card and reason, then the chat (long ones cut). */
export function describeFailure({ chat, reason }: FuzzFailure): string {
  const raw = JSON.stringify(chat.raw);
  return `${chat.shape} ${chat.language} ${JSON.stringify(chat.card)}: ${reason}\n  ${raw.length > 600 ? `${raw.slice(0, 600)}…` : raw}`;
}
