import type { BatchItemResult, Usage } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { memberResults, splitUsage } from './group-results.js';
import type { ModelTurn } from './model-client.js';

const usage: Usage = { inputTokens: 2_003, outputTokens: 901, cacheReadTokens: 7, cacheWriteTokens: 0 };
const v1 = (text: string) => ({
  compressedContent: text,
  keyPoints: [],
  emotionalHighlights: [],
  personalityAdjustment: { emphasized: [], deemphasized: [] },
});
const members = ['a', 'b', 'c'].map((id) => ({ customId: `cid-${id}`, memoryId: id, stage: 'v1' as const }));
const line = (json: unknown, end: ModelTurn['end'] = 'complete'): BatchItemResult => ({
  customId: 'cid-a',
  outcome: 'succeeded',
  turn: { end, stopReason: end === 'truncated' ? 'max_tokens' : 'tool_use', json, text: '', usage },
  usage,
});
const sum = (all: (Usage | undefined)[]) =>
  all.reduce<Usage>(
    (s, u) => ({
      inputTokens: s.inputTokens + (u?.inputTokens ?? 0),
      outputTokens: s.outputTokens + (u?.outputTokens ?? 0),
      cacheReadTokens: s.cacheReadTokens + (u?.cacheReadTokens ?? 0),
      cacheWriteTokens: s.cacheWriteTokens + (u?.cacheWriteTokens ?? 0),
    }),
    { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  );

describe('a group line split per memory (MEMORIES_PER_REQUEST)', () => {
  it('splits the usage into shares that add up to it exactly', () => {
    for (const n of [1, 2, 3, 7]) expect(sum(splitUsage(usage, n))).toEqual(usage);
    expect(splitUsage(usage, 3).map((u) => u.inputTokens)).toEqual([668, 668, 667]);
  });

  it('gives each answered memory its own complete turn; a missing, broken or twice-given one is retried', () => {
    const results = memberResults(
      line({
        memories: [
          { memoryId: 'a', result: v1('The move is on Saturday.') },
          { memoryId: 'b', result: { keyPoints: [] } },
          { memoryId: 'z', result: v1('Not asked for.') },
        ],
      }),
      [...members, { customId: 'cid-d', memoryId: 'd', stage: 'v1' }],
    );
    expect(results.map((r) => [r.customId, r.outcome])).toEqual([
      ['cid-a', 'succeeded'],
      ['cid-b', 'errored'],
      ['cid-c', 'errored'],
      ['cid-d', 'errored'],
    ]);
    const first = results[0] as Extract<BatchItemResult, { outcome: 'succeeded' }>;
    expect((first.turn as ModelTurn).json).toEqual(v1('The move is on Saturday.'));
    expect(results[1]).toMatchObject({ retryable: true, message: expect.stringContaining('broken') });
    expect(results[2]).toMatchObject({
      retryable: true,
      message: expect.stringContaining('without an item'),
    });
    // Every member carries its share of the paid line, whatever became of its item.
    expect(sum(results.map((r) => r.usage))).toEqual(usage);

    const twice = memberResults(
      line({
        memories: [
          { memoryId: 'a', result: v1('One.') },
          { memoryId: 'a', result: v1('Two.') },
        ],
      }),
      members,
    );
    expect(twice.map((r) => r.outcome)).toEqual(['errored', 'errored', 'errored']);
  });

  it('a line cut off retries every memory with its share; a failed line fails each as it failed', () => {
    const cut = memberResults(line(undefined, 'truncated'), members);
    expect(cut.every((r) => r.outcome === 'errored' && r.retryable)).toBe(true);
    expect(sum(cut.map((r) => r.usage))).toEqual(usage);
    const expired = memberResults(
      { customId: 'cid-a', outcome: 'expired', retryable: true, message: 'anthropic: expired' },
      members,
    );
    expect(expired).toEqual(
      members.map((m) => ({
        customId: m.customId,
        outcome: 'expired',
        retryable: true,
        message: 'anthropic: expired',
      })),
    );
  });
});
