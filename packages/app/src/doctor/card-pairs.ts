import type { Memory } from '@memfade/core';

/** A user and partner (persona) pair whose sampled memories have no role card, and how many. */
export interface CardPair {
  userId: string;
  partnerId: string;
  memories: number;
}

/**
 * The sampled memories counted by their role card: one found and valid, none, or an invalid one;
 * and the pairs (user, partner) of those without one, most memories first.
 */
export interface CardCounts {
  withCard: number;
  missing: number;
  invalid: number;
  example?: string;
  missingPairs: CardPair[];
}

export const noCards = (): CardCounts => ({ withCard: 0, missing: 0, invalid: 0, missingPairs: [] });

/**
 * The pairs of these memories, most memories first: doctor names a missing card as the worker's
 * error does (core's parseRoleCard), since a user may have a card for one persona and not another.
 */
export function cardPairs(memories: Memory[]): CardPair[] {
  const pairs = new Map<string, CardPair>();
  for (const { userId, partnerId } of memories) {
    const key = JSON.stringify([userId, partnerId]);
    const pair = pairs.get(key) ?? { userId, partnerId, memories: 0 };
    pair.memories++;
    pairs.set(key, pair);
  }
  return [...pairs.values()].sort((a, b) => b.memories - a.memories);
}

/** The pairs as the worker's error names them: `user u1 with partner mia (5)`, the first five. */
export function describePairs(pairs: CardPair[]): string {
  if (pairs.length === 0) return '';
  const named = pairs
    .slice(0, 5)
    .map(
      (p) =>
        `user ${p.userId}${p.partnerId === 'default' ? '' : ` with partner ${p.partnerId}`} (${p.memories})`,
    );
  return `: ${named.join(', ')}${pairs.length > 5 ? `, ${pairs.length - 5} more pairs` : ''}`;
}
