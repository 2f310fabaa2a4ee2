import { type Compressor, compressMemory, dueCutoff, type Memory, measureLength } from '@memfade/core';
import { insertMemories, memoryDocument, streamDueMemories } from '@memfade/db';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const LONG_ZH = [
  { role: 'user', text: '今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。' },
  { role: 'assistant', text: '听起来很治愈！那只小狗是什么颜色的？它的主人是怎么介绍它的呢？' },
  { role: 'user', text: '是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。' },
  { role: 'assistant', text: '好可爱的名字，你是不是也想养一只？养狗需要很多时间和耐心哦。' },
  { role: 'user', text: '有点想，不过我现在住的地方太小了，等明年搬家以后再认真考虑吧。' },
];

let harness: Harness;
const deps = () => ({ ...harness.services, policy: harness.config.policy, now: () => NOW });
const load = async (memoryId: string) =>
  (await harness.services.models.memories.findOne({ memoryId }).lean()) as unknown as Memory;

async function add(memoryId: string, ageMs: number, turns = LONG_ZH) {
  const doc = memoryDocument({
    memoryId,
    userId: 'u1',
    partnerId: 'p',
    turns,
    createdAt: new Date(NOW.getTime() - ageMs),
  });
  await insertMemories(
    harness.services.models,
    [doc],
    [{ userId: 'u1', personality: '温柔', hobbies: '散步，养狗' }],
  );
}

async function dueIds(stage: 'raw' | 'v1'): Promise<string[]> {
  const ids: string[] = [];
  const createdBefore = dueCutoff(stage === 'raw' ? 'v1' : 'v2', NOW, harness.config.policy);
  for await (const m of streamDueMemories(harness.services.models, { stage, createdBefore }))
    ids.push(m.memoryId);
  return ids;
}

beforeAll(async () => {
  harness = await startHarness({ now: NOW });
});
afterAll(async () => harness?.close());
beforeEach(async () => {
  await harness.services.models.memories.deleteMany({});
});

describe('the per-memory pipeline on real MongoDB-wire storage', () => {
  it('does not touch a memory 2 days 23:59 old, and compresses one exactly 3 days old', async () => {
    await add('young', 3 * DAY - MINUTE);
    await add('due', 3 * DAY);
    expect(await dueIds('raw')).toEqual(['due']);
    expect(await compressMemory('young', 'v1', 'r', deps())).toEqual({ kind: 'noop', reason: 'not_due' });
    expect((await load('young')).meta.compressionStage).toBe('raw');
    const outcome = await compressMemory('due', 'v1', 'r', deps());
    expect(outcome.kind).toBe('advanced');
    expect((await load('due')).meta.compressionStage).toBe('v1');
  });

  it('takes a raw memory 8 days old through V1 and then V2 in one job, two transitions', async () => {
    await add('old', 8 * DAY);
    const outcome = await compressMemory('old', 'v1', 'r', deps());
    expect(outcome.kind === 'advanced' && outcome.transitions.map((t) => t.stage)).toEqual(['v1', 'v2']);
    const doc = await load('old');
    expect(doc.compression?.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
    expect(doc.rev).toBe(2);
    expect(doc.compression?.v2?.coreMemory.length).toBeGreaterThan(0);
  });

  it('advances a too-short memory as skipped, carried with who said it, and the scan does not pick it up again', async () => {
    const short = [{ role: 'user', text: '晚安！' }];
    await add('short', 4 * DAY, short);
    const outcome = await compressMemory('short', 'v1', 'r', deps());
    expect(outcome.kind === 'advanced' && outcome.transitions[0]?.skipped).toBe(true);
    const doc = await load('short');
    expect(doc.compression?.v1).toMatchObject({
      skipped: 'too_short',
      // No role label: the turn as the memory reads it (docs/design.md §4).
      compressedContent: '你说：“晚安！”',
      compressionRatio: 1,
    });
    expect(await dueIds('raw')).toEqual([]);
    expect(await dueIds('v1')).toEqual([]);
  });

  it('measures lengths and ratios itself instead of trusting the model', async () => {
    await add('measured', 4 * DAY);
    const liar: Compressor = {
      name: 'liar',
      compressV1: async () => ({
        // A model claiming numbers of its own; only the text counts.
        fields: {
          compressedContent: '去西湖边散步看到小狗豆豆，打算明年搬家后养狗。',
          keyPoints: ['豆豆'],
          emotionalHighlights: [],
          personalityAdjustment: { emphasized: [], deemphasized: [] },
          originalLength: 99_999,
          compressedLength: 1,
          compressionRatio: 0.001,
        } as never,
        usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'liar-1',
        promptVersion: 'test',
      }),
      compressV2: async () => {
        throw new Error('not used');
      },
    };
    await compressMemory('measured', 'v1', 'r', { ...deps(), compressor: liar });
    const v1 = (await load('measured')).compression!.v1!;
    const input = LONG_ZH.map((t) => `${t.role}: ${t.text}`).join('\n');
    expect(v1.originalLength).toBe(measureLength(input));
    expect(v1.compressedLength).toBe(measureLength('去西湖边散步看到小狗豆豆，打算明年搬家后养狗。'));
    expect(v1.compressionRatio).toBeCloseTo(v1.compressedLength / v1.originalLength, 3);
    expect(v1.warnings[0]).toMatch(/outside the target/);
    expect(v1.usage.inputTokens).toBe(120);
  });

  it('fails a Chinese memory answered in English, and leaves it untouched', async () => {
    await add('wrong-language', 4 * DAY);
    const english: Compressor = {
      name: 'english',
      compressV1: async () => ({
        fields: {
          compressedContent:
            'Walked by the lake and met a puppy named Doudou; may adopt a dog after moving next year.',
          keyPoints: [],
          emotionalHighlights: [],
          personalityAdjustment: { emphasized: [], deemphasized: [] },
        },
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'm',
        promptVersion: 'p',
      }),
      compressV2: async () => {
        throw new Error('not used');
      },
    };
    await expect(
      compressMemory('wrong-language', 'v1', 'r', { ...deps(), compressor: english }),
    ).rejects.toThrow(/memory wrong-language: the memory is in zh but the compressed text is not/);
    expect((await load('wrong-language')).meta.compressionStage).toBe('raw');
  });
});
