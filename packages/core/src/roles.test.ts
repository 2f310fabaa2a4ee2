import { describe, expect, it } from 'vitest';
import { faithfulnessSource, inventedSpans } from './faithfulness.js';
import { COMPANION_ROLE, roleOf, SYSTEM_ROLE, USER_ROLE, usableName } from './roles.js';

describe('turn labels and card names', () => {
  it('reads a log kept from the user side: 我 / me are the user, 你 / you the companion', () => {
    for (const label of ['user', 'Human', '我', 'me', '用户'])
      expect(USER_ROLE.test(label), label).toBe(true);
    for (const label of ['assistant', 'AI', '你', 'you', '助手'])
      expect(COMPANION_ROLE.test(label), label).toBe(true);
    expect(USER_ROLE.test('Sam')).toBe(false);
    expect([' User ', '你', 'system', 'Caroline'].map(roleOf)).toEqual([
      'user',
      'companion',
      'system',
      undefined,
    ]);
    // The offline compressor's packs held these as examples before the lists moved here.
    const roles = [
      {
        role: USER_ROLE,
        matches: ['user', 'customer', 'me', '用户', '我'],
        rejects: ['assistant', 'caroline', '助手', '小暖'],
      },
      {
        role: COMPANION_ROLE,
        matches: ['assistant', 'bot', 'you', '助手', '伴侣', '你'],
        rejects: ['user', 'caroline', '用户', '小暖'],
      },
      { role: SYSTEM_ROLE, matches: ['system', 'tool', '系统'], rejects: ['user', '用户'] },
    ];
    for (const { role, matches, rejects } of roles) {
      for (const label of matches) expect(role.test(label), label).toBe(true);
      for (const label of rejects) expect(role.test(label), label).toBe(false);
    }
  });

  it('takes no pronoun, and no name ending on 说 / 问, as a card name: "说说说…" and "You said" are nobody', () => {
    for (const name of ['你', '我们', '说说', '小问', 'You', 'I', ' it ', '', undefined])
      expect(usableName(name), String(name)).toBe(false);
    for (const name of ['小暖', '天天', '说书人', 'Juno', 'Said', 'Will'])
      expect(usableName(name), name).toBe(true);
  });

  it('checks a stage against a card named "You" as against one with no name', () => {
    const memory = {
      memoryId: 'm',
      userId: 'u',
      partnerId: 'p',
      content: {
        raw: [
          { role: 'assistant', text: 'When is it?' },
          { role: 'user', text: 'Got it. I went to the park.' },
        ],
      },
      meta: { createdAt: new Date(), compressionStage: 'raw' as const },
    };
    const source = faithfulnessSource(memory as never, { userId: 'u', name: 'You' }, 'en');
    expect(source.names).toEqual([]);
    expect(inventedSpans('I wondered when it is, and you got it.', source)).toEqual([]);
  });
});
