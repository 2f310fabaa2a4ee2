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
    expect(failure(badDate).message).toMatch(
      /memory m1: meta\.createdAt: a string, not a BSON date: "yesterday-ish"/,
    );

    const stage = valid() as Record<string, any>;
    stage.meta.compressionStage = 'v9';
    expect(failure(stage)).toMatchObject({ field: 'meta.compressionStage' });

    const numeric = valid() as Record<string, any>;
    numeric.content.raw = 42;
    expect(failure(numeric)).toMatchObject({ field: 'content.raw' });

    // One bad turn of many: the turn and its field, not only `content.raw`.
    const turns = [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'hello' },
    ];
    const badText = valid() as Record<string, any>;
    badText.content.raw = [turns[0], { ...turns[1], text: 42 }];
    expect(failure(badText)).toMatchObject({ field: 'content.raw.1.text', reason: 'expected a string' });
    const noRole = valid() as Record<string, any>;
    noRole.content.raw = [{ text: 'hi' }, turns[1]];
    expect(failure(noRole)).toMatchObject({ field: 'content.raw.0.role' });
    const badTime = valid() as Record<string, any>;
    badTime.content.raw = [turns[0], { ...turns[1], at: 'at noon' }];
    expect(failure(badTime)).toMatchObject({ field: 'content.raw.1.at' });

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

  // The due scan is a range query on a BSON date: a string or number date would never be selected
  // by age, and a number may be seconds or milliseconds. Refusing them makes the product fix it.
  it('accepts only a BSON date as the creation date', () => {
    for (const createdAt of ['2026-11-01T00:00:00Z', 1_761_955_200, 1_761_955_200_000]) {
      const doc = valid() as Record<string, any>;
      doc.meta.createdAt = createdAt;
      expect(failure(doc), String(createdAt)).toMatchObject({ field: 'meta.createdAt' });
    }
    const numeric = valid() as Record<string, any>;
    numeric.meta.createdAt = 1_761_955_200;
    expect(failure(numeric).message).toMatch(/a number, not a BSON date: 1761955200 \(seconds or milli/);
    const invalid = valid() as Record<string, any>;
    invalid.meta.createdAt = new Date('not a date');
    expect(failure(invalid).message).toMatch(/meta\.createdAt: not a valid date/);
  });

  it('refuses a creation date more than a day ahead of now, and tolerates clock skew', () => {
    const now = new Date('2026-11-01T00:00:00Z');
    const ahead = (ms: number) => {
      const doc = valid() as Record<string, any>;
      doc.meta.createdAt = new Date(now.getTime() + ms);
      return doc;
    };
    expect(parseMemory(ahead(10 * 60_000), policy, now).meta.createdAt).toBeInstanceOf(Date);
    expect(parseMemory(ahead(86_400_000), policy, now).meta.createdAt).toBeInstanceOf(Date);
    expect(() => parseMemory(ahead(86_400_001), policy, now)).toThrow(
      'memory m1: meta.createdAt: 2026-11-02T00:00:00.001Z is in the future (now is 2026-11-01T00:00:00.000Z)',
    );
    // Without a clock (tools that only read a memory) the date is not judged.
    expect(parseMemory(ahead(365 * 86_400_000), policy).memoryId).toBe('m1');
  });

  it('refuses unpaired UTF-16 surrogates as binary, in a string or in a turn, and keeps paired ones', () => {
    const lone = valid() as Record<string, any>;
    lone.content.raw = 'half an emoji: \uD83D and more';
    expect(failure(lone).message).toMatch(/content\.raw: contains unpaired UTF-16 surrogates/);
    const inTurn = valid() as Record<string, any>;
    inTurn.content.raw = [{ role: 'user', text: 'tail first \uDE00' }];
    expect(failure(inTurn)).toMatchObject({ field: 'content.raw' });
    const emoji = valid() as Record<string, any>;
    emoji.content.raw = 'a whole emoji: \uD83D\uDE00';
    expect(parseMemory(emoji, policy).content.raw).toBe('a whole emoji: 😀');
  });
});

describe('parseRoleCard', () => {
  it('treats a missing role card as bad input of that memory', () => {
    expect(() => parseRoleCard(null, 'm1', 'u1')).toThrow('memory m1: roleCard: no role card for user u1');
  });

  it("names the memory's pair, user and partner: a user may have a card for another persona", () => {
    expect(() => parseRoleCard(null, 'm1', 'u1', 'mia')).toThrow(
      'memory m1: roleCard: no role card for user u1 with partner mia',
    );
  });

  it('reads the names as the stages write them: " Juno " is Juno (the gate refused every stage else)', () => {
    const card = parseRoleCard({ userId: 'u1', name: ' Juno ', userName: '林晓\n' }, 'm1', 'u1');
    expect([card.name, card.userName]).toEqual(['Juno', '林晓']);
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
