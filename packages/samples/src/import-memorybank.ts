import { detectLanguage, type RoleCard } from '@memfade/core';
import { memoryDocument, type NewMemory } from '@memfade/db';
import { z } from 'zod';

/** MemoryBank (SiliconFriend) eval format: users with meta_information and one dated session per day. */
const memoryBankSchema = z.record(
  z.string(),
  z.object({
    name: z.string().optional(),
    meta_information: z
      .object({
        name: z.string().optional(),
        personality: z.string().optional(),
        hobbies: z.string().optional(),
        speaking_style: z.string().optional(),
      })
      .optional(),
    history: z.record(
      z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'history keys must be dates (YYYY-MM-DD)' }),
      z.array(z.object({ query: z.string(), response: z.string() })),
    ),
  }),
);

export interface ImportedSet {
  memories: Record<string, unknown>[];
  roleCards: RoleCard[];
  /** Days with no conversation: nothing to remember, so no memory is made for them. */
  emptyDays: number;
}

/**
 * Maps MemoryBank JSON to memories: one per user per dated day, created at that day's midnight
 * UTC, with query/response pairs as user/assistant turns; meta_information becomes the role card.
 */
export function parseMemoryBank(json: unknown, options: { idPrefix: string }): ImportedSet {
  const data = memoryBankSchema.parse(json);
  const memories: Record<string, unknown>[] = [];
  const roleCards: RoleCard[] = [];
  let emptyDays = 0;
  for (const [key, user] of Object.entries(data)) {
    const userId = `${options.idPrefix}-${key}`;
    const meta = user.meta_information ?? {};
    const sample = [
      meta.personality,
      meta.hobbies,
      ...Object.values(user.history)
        .flat()
        .slice(0, 3)
        .map((t) => t.query),
    ];
    const language = detectLanguage(sample.join(' '));
    roleCards.push({
      userId,
      name: meta.name ?? user.name ?? key,
      personality: meta.personality,
      hobbies: meta.hobbies,
      speakingStyle: meta.speaking_style,
      language,
    });
    for (const [day, pairs] of Object.entries(user.history)) {
      if (pairs.length === 0) {
        emptyDays++;
        continue;
      }
      const memory: NewMemory = {
        memoryId: `${userId}-${day}`,
        userId,
        partnerId: 'companion',
        turns: pairs.flatMap((p) => [
          { role: 'user', text: p.query },
          { role: 'assistant', text: p.response },
        ]),
        createdAt: new Date(`${day}T00:00:00Z`),
        language,
      };
      memories.push(memoryDocument(memory));
    }
  }
  return { memories, roleCards, emptyDays };
}
