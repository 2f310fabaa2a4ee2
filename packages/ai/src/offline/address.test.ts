import { describe, expect, it } from 'vitest';
import { readConversation } from './read.js';

/** A name a turn calls (a companion's nickname no role card gives) is who is spoken to, never a memory. */
describe('a name called before a greeting', () => {
  it('is left out wherever it opens a clause, and "小依晚上好" is a greeting', () => {
    const text = [
      'user: 小度，晚上好呀',
      'assistant: 小依晚上好，你想我了没？',
      'user: 小度，我明天要去徒步旅行。',
      'assistant: 小度是你的好朋友嘛。',
    ].join('\n');
    const clauses = readConversation(text, {
      language: 'zh',
      roleCard: {},
      speakers: ['user', 'assistant'],
    }).clauses.map((c) => c.text);
    expect(clauses.join('|')).not.toMatch(/^小度，|\|小度，|小依晚上好/);
    expect(clauses.join('')).toContain('我明天要去徒步旅行');
    // A name that is the subject stays.
    expect(clauses.join('')).toContain('小度是你的好朋友');
  });
});
