/**
 * What the operator's commands do to the product's memories (docs/cli.md): count them by stage,
 * show one, import a data set, flag some for re-embedding, tell known users from typos. The apps
 * call these with what they opened (Operations); MongoDB stays the application's (docs/design.md §2).
 */
import type { RoleCard, Stage } from '@memfade/core';
import {
  countByStage,
  findMemory,
  insertMemories,
  type Models,
  markVectorPending,
  usersWithMemories,
} from '@memfade/db';

type Opened = { models: Models };

/** How many memories stand at each stage, all or some users' (`memfade status`, the demo). */
export function stageCounts(
  { models }: Opened,
  userIds?: string[],
): Promise<Record<Stage | 'other', number>> {
  return countByStage(models, userIds ? { userIds } : {});
}

/** One memory as memfade reads it, or null (`memfade inspect`). */
export function inspectMemory({ models }: Opened, memoryId: string): Promise<Record<string, unknown> | null> {
  return findMemory(models, memoryId);
}

/** Writes a data set's memories and role cards, leaving existing ones as they are (`memfade import`). */
export function importMemories(
  { models }: Opened,
  memories: Record<string, unknown>[],
  roleCards: RoleCard[],
): Promise<{ memories: number; roleCards: number }> {
  return insertMemories(models, memories, roleCards);
}

/** Flags memories for the vector outbox (`memfade reindex`); returns how many. */
export function flagForReindex({ models }: Opened, filter: { userIds?: string[] } | 'all'): Promise<number> {
  return markVectorPending(models, filter);
}

/** Which of these users have memories: a --user memfade never saw is most likely a typo. */
export function knownUsers({ models }: Opened, userIds: string[]): Promise<Set<string>> {
  return usersWithMemories(models, userIds);
}
