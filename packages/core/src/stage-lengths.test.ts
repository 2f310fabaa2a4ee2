import { describe, expect, it } from 'vitest';
import { faithfulnessSource } from './faithfulness.js';
import { v1Target } from './gates.js';
import type { Memory, V1Result } from './memory.js';
import { planStage, request, V2_SHARE_OF_V1 } from './stage.js';
import { stagePolicy } from './stage-policy.js';
import { measureLength } from './text.js';

/**
 * The lengths a stage is planned at (docs/design.md §4): V1's share of its input under an absolute
 * ceiling, kept by every chunk of a long memory; V2 always shorter than V1, never V1 again.
 */

const policy = stagePolicy();
const NOW = new Date('2026-05-01T00:00:00Z');

function memory(raw: string, v1Content?: string): Memory {
  const v1 =
    v1Content === undefined
      ? undefined
      : ({ compressedContent: v1Content, keyPoints: [], emotionalHighlights: [] } as unknown as V1Result);
  return {
    memoryId: 'm',
    userId: 'u',
    partnerId: 'p',
    content: { raw },
    meta: { createdAt: new Date('2026-04-20T00:00:00Z'), compressionStage: v1 ? 'v1' : 'raw' },
    compression: { ...(v1 && { v1 }), history: [] },
    rev: 0,
  };
}

describe('V1 length: a share of the input, under an absolute ceiling', () => {
  it('is 30-50% of a short input, and at most v1MaxChars (6,000) of a long one', () => {
    expect(v1Target(1000, policy)).toEqual({ min: 300, max: 500 });
    expect(v1Target(75_000, policy)).toEqual({ min: 3600, max: 6000 });
    expect(v1Target(75_000, stagePolicy({ v1MaxChars: 2000 }))).toEqual({ min: 1200, max: 2000 });
  });

  it('gives each chunk of a 75,000-character memory its share, so the merged V1 stays under the ceiling', () => {
    const line = `user: ${'我今天去了西湖边散步，看到一只小狗。'.repeat(20)}\n`;
    const raw = line.repeat(Math.ceil(75_000 / measureLength(line)));
    const plan = planStage(memory(raw), 'v1', { userId: 'u' }, 'zh', NOW, policy);
    expect(plan.chunks.length).toBeGreaterThan(5);
    const sum = (key: 'min' | 'max') => plan.chunks.reduce((n, c) => n + c.target[key], 0);
    expect(sum('max')).toBeLessThanOrEqual(plan.target.max);
    expect(sum('max')).toBeGreaterThan(plan.target.max - plan.chunks.length);
    expect(sum('min')).toBeLessThanOrEqual(plan.target.min);
  });
});

describe('V2 length: shorter than V1, never V1 again', () => {
  const v2For = (v1Length: number) => {
    const v1 = '记'.repeat(v1Length);
    return planStage(memory('user: 很长的对话', v1), 'v2', { userId: 'u' }, 'zh', NOW, policy).target;
  };

  it('is the configured range when V1 is long enough for it', () => {
    expect(v2For(1000)).toEqual({ min: 100, max: 200 });
  });

  it(`is at most ${V2_SHARE_OF_V1 * 100}% of V1, even within the range`, () => {
    expect(v2For(200)).toEqual({ min: 96, max: 160 });
  });

  it('tells the compressor the configured range a capped target was lowered from', () => {
    const plan = planStage(
      memory('user: 很长的对话', '记'.repeat(140)),
      'v2',
      { userId: 'u' },
      'zh',
      NOW,
      policy,
    );
    expect(plan.target).toEqual({ min: 67, max: 112 });
    const sent = request(plan.input, plan.input.text, plan.target, undefined);
    expect(sent.targetLength).toEqual({ min: 67, max: 112 });
    expect(sent.range).toEqual({ min: 100, max: 200 });
  });

  it('gives a V1 shorter than the range a core memory of a sentence or two: below V1, never equal', () => {
    // The rule before: the range capped at V1's length, so V2 could copy a V1 of 80 characters.
    expect(v2For(80)).toEqual({ min: 38, max: 64 });
    for (const length of [10, 50, 99, 120, 124, 125, 150, 199, 250]) {
      const { min, max } = v2For(length);
      expect(max).toBeLessThan(length);
      expect(min).toBeLessThanOrEqual(max);
    }
  });
});

describe('who said a memory, as the request tells an extractive compressor (issue 36, deliver 5)', () => {
  it('a memory stored as one string is unattributed; one stored as turns is not, nor is a model asked so', () => {
    const text = '今天我和妈妈去公园放风筝了，风筝飞得好高，是红色的，上面画着一条龙。'.repeat(4);
    const asked = (m: Memory, checked: boolean) => {
      const plan = planStage(m, 'v1', { userId: 'u' }, 'zh', NOW, policy);
      const input = checked
        ? { ...plan.input, source: faithfulnessSource(m, { userId: 'u' }, 'zh') }
        : plan.input;
      return request(input, input.text, plan.target, undefined).unattributed;
    };
    expect(asked(memory(text), true)).toBe(true);
    expect(asked({ ...memory(text), content: { raw: [{ role: 'user', text }] } }, true)).toBeUndefined();
    expect(asked(memory(text), false)).toBeUndefined();
  });
});
