import { describe, expect, it } from 'vitest';
import { compressor, request, share } from './compressor-harness.js';
import { conversationClauses } from './segment.js';
import { atoms, withNeeds } from './statements.js';

/**
 * Advice to 你 goes on in clauses with no subject ("最后，你可以结识一些有影响力的人，找到机会和平台，展示自己的才华
 * 和价值。"): cut from the clause naming 你, "我说展示自己的才华和价值。" reads as the companion's own doing, a fragment
 * a reader of a MemoryBank memory scored down (zh.advisedYou).
 */
const CHAT = [
  'user: 最近我在思考人生的意义，总感觉缺少一些重要的东西。你觉得如何才能实现个人价值呢？',
  'assistant: 你可以首先了解自己的兴趣爱好和特长，找到自己的方向。最后，你可以结识一些有影响力的人，找到机会和平台，展示自己的才华和价值。',
  'user: 这些方法听起来都很不错，我会试着去尝试。不过有时候我还是会感到迷茫和无助。',
  'assistant: 迷茫是常见的情绪。你可以向周围的朋友和亲人寻求支持，尝试放松和调节自己的心态。',
].join('\n');

describe('advice to 你 and the clauses after it', () => {
  it("leans on the clause naming 你: kept only with it, or (past the chain's limit) never", () => {
    const all = atoms(conversationClauses(CHAT), true);
    const atom = (part: string) => all.find((a) => a.text.includes(part))!;
    const chainOf = (part: string) => withNeeds(atom(part)).map((a) => a.text);
    expect(chainOf('找到机会和平台')).toContain('最后，你可以结识一些有影响力的人，');
    expect(
      atom('展示自己的才华').orphan || chainOf('展示自己的才华').some((t) => t.includes('你可以结识')),
    ).toBe(true);
    expect(chainOf('找到自己的方向')[0]).toMatch(/^你可以首先了解/);
    expect(chainOf('调节自己的心态')[0]).toMatch(/^你可以向周围的朋友/);
    // The user's own subjectless clause is the user's: it leans on no advice.
    expect(chainOf('总感觉缺少')).toHaveLength(1);
  });

  it('is never a stage line of its own', async () => {
    const v1 = (
      await compressor.compressV1(request(CHAT, 'zh', share(CHAT), { name: '小满', userName: '王峰' }))
    ).fields.compressedContent;
    for (const [rest, head] of [
      ['展示自己的才华', '你可以结识'],
      ['调节自己的心态', '你可以向周围'],
    ] as const)
      if (v1.includes(rest)) expect(v1).toContain(head);
    expect(v1).not.toMatch(/小满说(?:找到|展示|尝试放松)/);
  });
});
