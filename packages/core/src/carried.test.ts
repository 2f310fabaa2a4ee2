import { describe, expect, it } from 'vitest';
import { carriedText } from './carried.js';

const roles = (...names: string[]) => new Set(names);

describe('carriedText: a memory too short for a model, as a memory reads', () => {
  it('attributes each turn by the convention, never with a role label, and drops system turns and stickers', () => {
    const text = 'user: 晚安！\nsystem: [sticker:happy]\nassistant: 晚安，做个好梦[sticker:moon]';
    const out = carriedText(text, roles('user', 'system', 'assistant'), {}, 'zh');
    expect(out).toBe('你说：“晚安！”\n我说：“晚安，做个好梦”');
    expect(out).not.toMatch(/user|assistant|system|sticker/);
  });

  it("uses the role card's names: the persona for the companion, userName for the user", () => {
    const text = 'user: Good night!\nassistant: Sleep well.';
    const card = { name: 'Mia', userName: 'Sam' };
    expect(carriedText(text, roles('user', 'assistant'), card, 'en')).toBe(
      'Sam said: "Good night!"\nMia said: "Sleep well."',
    );
    expect(carriedText(text, roles('user', 'assistant'), {}, 'en')).toBe(
      'You said: "Good night!"\nI said: "Sleep well."',
    );
  });

  it('names a speaker the conversation names, and keeps a line that only looks like a label', () => {
    const text = 'Caroline: See you Friday!\nNote: bring the cake';
    expect(carriedText(text, roles('Caroline'), {}, 'en')).toBe(
      'Caroline said: "See you Friday!"\nNote: bring the cake',
    );
  });

  it('keeps a sticker-only memory as it was, without its labels', () => {
    expect(carriedText('user: [sticker:happy]', roles('user'), {}, 'en')).toBe('[sticker:happy]');
  });
});

describe('carriedText: a memory stored as one string is attributed to nobody (issue 36, deliver 5)', () => {
  it('keeps its words as written, with no 你说 / "You said", even where a line looks like a turn', () => {
    expect(carriedText('今天我和妈妈去放风筝了', undefined, { name: '小满' }, 'zh')).toBe(
      '今天我和妈妈去放风筝了',
    );
    const out = carriedText(
      'user: 我今天好累\nassistant: 早点休息[sticker:moon]',
      undefined,
      { name: '小满' },
      'zh',
    );
    expect(out).toBe('我今天好累\n早点休息');
    expect(out).not.toMatch(/说|user|assistant/);
    expect(carriedText('user: I lost my cat today.', undefined, {}, 'en')).toBe('I lost my cat today.');
  });
});
