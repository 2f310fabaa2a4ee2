import { describe, expect, it } from 'vitest';
import type { Language, Memory } from './memory.js';
import { memoryLanguage } from './memory-language.js';

const memory = (text: string, language?: Language): Memory => ({
  memoryId: 'm1',
  userId: 'u1',
  partnerId: 'default',
  content: { raw: [{ role: 'user', text }] },
  meta: {
    createdAt: new Date('2026-11-20T10:00:00Z'),
    compressionStage: 'raw',
    ...(language && { language }),
  },
  rev: 0,
});
const card = (language?: Language) => ({ userId: 'u1', ...(language && { language }) });

describe('the language a memory is compressed in', () => {
  it('is the conversation’s own when it is clearly one language, whatever the settings say', () => {
    const chinese = '今天我去参加了奶奶的葬礼，真的好难过。小时候奶奶在院子里教我种番茄。';
    const english = 'I went to my grandmother’s funeral today. She taught me to grow tomatoes.';
    expect(memoryLanguage(memory(chinese, 'en'), card('en'))).toBe('zh');
    expect(memoryLanguage(memory(english, 'zh'), card('zh'))).toBe('en');
  });

  it('is read from what was said, not from the turns’ labels ("user:", "assistant:" are no English)', () => {
    const chat: Memory = {
      ...memory(''),
      content: {
        raw: [
          { role: 'user', text: '我担心明天下雨' },
          { role: 'assistant', text: '我今天去了公园。' },
          { role: 'user', text: '爸爸下周三出差去上海。上次单元测验我只考了72分' },
          { role: 'assistant', text: 'How was your day?' },
        ],
      },
    };
    expect(memoryLanguage(chat, card('en'))).toBe('zh');
  });

  it('is the memory’s setting, else its card’s, else the detected one, for a mixed conversation', () => {
    // Half Chinese, half English by weight: neither clearly.
    const mixed = '今天开会讨论了新项目 we need to finish the quarterly report and the slides by Friday';
    expect(memoryLanguage(memory(mixed, 'en'), card('zh'))).toBe('en');
    expect(memoryLanguage(memory(mixed), card('zh'))).toBe('zh');
    expect(memoryLanguage(memory(mixed), card('en'))).toBe('en');
    expect(['zh', 'en']).toContain(memoryLanguage(memory(mixed), card()));
  });
});
