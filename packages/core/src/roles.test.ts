import { describe, expect, it } from 'vitest';
import { faithfulnessSource, inventedSpans } from './faithfulness.js';
import { COMPANION_ROLE, USER_ROLE, usableName } from './roles.js';

describe('turn labels and card names', () => {
  it('reads a log kept from the user side: 我 / me are the user, 你 / you the companion', () => {
    for (const label of ['user', 'Human', '我', 'me', '用户'])
      expect(USER_ROLE.test(label), label).toBe(true);
    for (const label of ['assistant', 'AI', '你', 'you', '助手'])
      expect(COMPANION_ROLE.test(label), label).toBe(true);
    expect(USER_ROLE.test('Sam')).toBe(false);
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
