import type { EvalConversation } from './dataset.js';

/**
 * The tune and the check half of every set (issue 36, deliver 7; docs/eval/README.md "The tune
 * and the check half"). The offline compressor is changed looking at the tune half only; its
 * numbers are judged on the check half, which it was never fitted to. The split is by
 * conversation: the memories of one conversation (a LoCoMo sample's sessions, a MemoryBank user's
 * days: `thread`) fall in one half, so no person is in both. The rule needs no list and never
 * moves: FNV-1a (32 bits) of the conversation's key, even in the tune half, odd in the check half.
 * `split.test.ts` pins it.
 */
export type Half = 'tune' | 'check';

export const HALVES: readonly Half[] = ['tune', 'check'];

/** FNV-1a, 32 bits, over the key's UTF-8 bytes. */
export function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export const halfOf = (conversation: Pick<EvalConversation, 'id' | 'thread'>): Half =>
  fnv1a(conversation.thread ?? conversation.id) % 2 === 0 ? 'tune' : 'check';

/** A set's conversations in one half, in their order. */
export const inHalf = <T extends Pick<EvalConversation, 'id' | 'thread'>>(
  items: readonly T[],
  half: Half,
): T[] => items.filter((c) => halfOf(c) === half);
