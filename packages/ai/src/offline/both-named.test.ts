import { describe, expect, it } from 'vitest';
import { stages } from './compressor-harness.js';

/**
 * A role card naming the companion ("小暖", "Juno"), and the user too ("乐乐"): V1 writes each by name, and V2 still knows
 * which lines are the companion's (read.ts): its offers and cheer are no memory, its lines second to the child's.
 */
const CHAT = [
  'user: 小暖，我今天不想去上学了。',
  'assistant: 怎么了？在学校发生什么事了吗？',
  'user: 班上的王浩总是抢我的橡皮，还给我起外号，叫我小胖墩。',
  'assistant: 被人起外号一定很难受。你告诉老师了吗？',
  'user: 没有，我怕告诉老师以后他会更欺负我。',
  'assistant: 你的担心我能理解。那爸爸妈妈知道吗？',
  'user: 我只跟姐姐说了，姐姐说她明天送我上学，要去找王浩说清楚。',
  'assistant: 有姐姐保护你真好。不过最好也让老师知道，老师可以帮你们解决问题。',
  'user: 好吧，那我明天跟姐姐一起去找陈老师。',
  'assistant: 你很勇敢！如果还有不开心的事情，随时来跟我说。',
].join('\n');

describe('a named companion (written chats)', () => {
  it("keeps the child's trouble, fear and plan in V2, not the companion's offer", async () => {
    const { v1, v2 } = await stages(CHAT, 'zh', { name: '小暖', userName: '乐乐' });
    expect(v1.compressedContent).toMatch(/^乐乐/u);
    expect(v2.coreMemory).toContain('王浩总是抢乐乐的橡皮');
    expect(v2.coreMemory).not.toContain('随时来跟小暖说');
  });

  it('keeps a question the child answered with fear, with the answer ("没有，怕…")', async () => {
    const { v2 } = await stages(CHAT, 'zh', { name: '小暖', userName: '乐乐' });
    expect(v2.coreMemory).toContain('小暖问：“你告诉老师了吗？”乐乐说没有，怕告诉老师以后他会更欺负乐乐。');
  });

  it('keeps no named companion\'s own likes ("Juno loves farms"), as it keeps no "I love farms"', async () => {
    const chat = [
      'user: Rough week. My grandpa moved into a care home on Monday.',
      'assistant: Oh Andrew, I am sorry. How is he settling in?',
      'user: Not great. He keeps asking when he can go back to his farm. He lived there for 52 years.',
      'assistant: Do you get to visit him often?',
      'user: I go every Wednesday after work. Last time I brought his old radio and he smiled for the first time.',
      'assistant: I love farms, by the way, they are so peaceful.',
      'user: My sister Kate thinks we should sell the farm. We are meeting with a lawyer on December 10.',
    ].join('\n');
    for (const card of [{ name: 'Juno', userName: 'Andrew' }, { name: 'Juno' }]) {
      const { v2 } = await stages(chat, 'en', card);
      expect(v2.coreMemory).toContain('care home');
      expect(v2.coreMemory).not.toMatch(/loves? farms/u);
    }
  });
});
