import { describe, expect, it } from 'vitest';
import { BadInputError } from './errors.js';
import { parseMemory, parseRoleCard } from './parse.js';
import { stagePolicy } from './stage-policy.js';

const policy = stagePolicy({ maxInputBytes: 1000 });
const valid = () => ({
  memoryId: 'm1',
  userId: 'u1',
  partnerId: 'p1',
  content: { raw: [{ role: 'user', text: '你好' }] },
  meta: { createdAt: new Date('2026-11-01T00:00:00Z'), compressionStage: 'raw' },
});

function failure(doc: Record<string, unknown>): BadInputError {
  try {
    parseMemory(doc, policy);
  } catch (error) {
    if (error instanceof BadInputError) return error;
    throw error;
  }
  throw new Error('expected a BadInputError');
}

describe('parseMemory', () => {
  it('accepts a valid memory and defaults rev to 0', () => {
    const memory = parseMemory(valid(), policy);
    expect(memory.rev).toBe(0);
    expect(memory.meta.createdAt.toISOString()).toBe('2026-11-01T00:00:00.000Z');
  });

  it('names the memory and the field of each bad input', () => {
    const noDate = valid() as Record<string, any>;
    delete noDate.meta.createdAt;
    expect(failure(noDate)).toMatchObject({ memoryId: 'm1', field: 'meta.createdAt' });

    const badDate = valid() as Record<string, any>;
    badDate.meta.createdAt = 'yesterday-ish';
    expect(failure(badDate).message).toMatch(/memory m1: meta\.createdAt: not a valid date/);

    const stage = valid() as Record<string, any>;
    stage.meta.compressionStage = 'v9';
    expect(failure(stage)).toMatchObject({ field: 'meta.compressionStage' });

    const numeric = valid() as Record<string, any>;
    numeric.content.raw = 42;
    expect(failure(numeric)).toMatchObject({ field: 'content.raw' });

    const huge = valid() as Record<string, any>;
    huge.content.raw = 'x'.repeat(5 * 1024 * 1024);
    expect(failure(huge).message).toMatch(/5242880 bytes is more than the maximum input size of 1000/);

    const binary = valid() as Record<string, any>;
    binary.content.raw = 'PNG\u0000\u0001\u0002';
    expect(failure(binary).message).toMatch(/control characters/);

    const topics = valid() as Record<string, any>;
    topics.content.processed = { keyTopics: 'travel' };
    expect(failure(topics)).toMatchObject({ field: 'content.processed.keyTopics' });
  });
});

describe('parseRoleCard', () => {
  it('treats a missing role card as bad input of that memory', () => {
    expect(() => parseRoleCard(null, 'm1', 'u1')).toThrow('memory m1: roleCard: no role card for user u1');
  });

  it('joins list-valued personality and rejects wrong types', () => {
    expect(parseRoleCard({ userId: 'u1', personality: ['kind', 'shy'] }, 'm1', 'u1').personality).toBe(
      'kind, shy',
    );
    expect(() => parseRoleCard({ userId: 'u1', speakingStyle: 3 }, 'm1', 'u1')).toThrow(
      /roleCard\.speakingStyle/,
    );
  });
});
