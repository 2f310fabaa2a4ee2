import type { BatchItemResult, GroupMember, Usage } from '@memfade/core';
import { memoryLabel } from '../prompts/group-prompt.js';
import { STAGE_SCHEMAS } from '../schemas.js';
import type { ModelTurn } from './model-client.js';

/**
 * A group line's result as one result per memory (MEMORIES_PER_REQUEST, docs/batch-mode.md). The
 * line was billed once; each member gets a share of its tokens (splitUsage), so what the run counts
 * per memory adds up to what the provider billed. A member's item that passes its stage's schema is
 * a complete turn of its own, which accept() then checks like any reply (language, length, facts,
 * its repair turn); a member without one is retried alone in the next round.
 */
export function memberResults(line: BatchItemResult, members: GroupMember[]): BatchItemResult[] {
  // A line that failed, expired or was canceled: each member as the line (retried alone if retryable).
  if (line.outcome !== 'succeeded') return members.map(({ customId }) => ({ ...line, customId }));
  const turn = line.turn as ModelTurn;
  const shares = splitUsage(line.usage, members.length);
  // A line without its usage: each member is counted at its own ceiling (app batch-results.ts).
  const missing = line.usageMissing && { usageMissing: true as const };
  const unusable = (customId: string, usage: Usage, why: string): BatchItemResult => ({
    customId,
    outcome: 'errored',
    retryable: true,
    message: `group reply ${why}: retried alone`,
    usage,
    ...missing,
  });
  if (turn.end !== 'complete') {
    const why = turn.end === 'truncated' ? `cut off (${turn.stopReason})` : `refused (${turn.stopReason})`;
    return members.map(({ customId }, i) => unusable(customId, shares[i]!, why));
  }
  const items = itemsById(turn.json);
  return members.map(({ customId, memoryId, stage }, i) => {
    const usage = shares[i]!;
    const result = items.get(memoryLabel(memoryId));
    if (result === undefined) return unusable(customId, usage, 'without an item for the memory');
    if (!fitsSchema(stage, result)) return unusable(customId, usage, "with the memory's item broken");
    const text = JSON.stringify(result);
    const own: ModelTurn = {
      end: 'complete',
      stopReason: turn.stopReason,
      json: result,
      text,
      usage,
      ...missing,
    };
    return { customId, outcome: 'succeeded', turn: own, usage, ...missing };
  });
}

/** The reply's items by memory id; an id given twice is no answer for it (neither can be trusted). */
function itemsById(json: unknown): Map<string, unknown> {
  const items = new Map<string, unknown>();
  const twice = new Set<string>();
  const list = (json as { memories?: unknown } | undefined)?.memories;
  if (!Array.isArray(list)) return items;
  for (const item of list) {
    const { memoryId, result } = (item ?? {}) as { memoryId?: unknown; result?: unknown };
    if (typeof memoryId !== 'string' || result === undefined) continue;
    if (items.has(memoryId)) twice.add(memoryId);
    items.set(memoryId, result);
  }
  for (const id of twice) items.delete(id);
  return items;
}

/** A V1 item is V1 with its draft when it has the pair's shape (the group's kind: groupKind). */
function fitsSchema(stage: GroupMember['stage'], result: unknown): boolean {
  const pair = stage === 'v1' && typeof result === 'object' && result !== null && 'v1' in result;
  return STAGE_SCHEMAS[pair ? 'pair' : stage].safeParse(result).success;
}

/**
 * A usage split into `n` shares that add up to it exactly: each count divided evenly, the
 * remainder one token each to the first shares.
 */
export function splitUsage(usage: Usage, n: number): Usage[] {
  const share = (total: number, i: number) => Math.floor(total / n) + (i < total % n ? 1 : 0);
  return Array.from({ length: n }, (_, i) => ({
    inputTokens: share(usage.inputTokens, i),
    outputTokens: share(usage.outputTokens, i),
    cacheReadTokens: share(usage.cacheReadTokens, i),
    cacheWriteTokens: share(usage.cacheWriteTokens, i),
  }));
}
