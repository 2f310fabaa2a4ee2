import { type CompressionRequest, inventedSpans } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';

/**
 * What cannot be said in the memory's voice without a guess is quoted as said (issue 36, never
 * invent): a question with no form to report it by, a named speaker's "myself". And catching up
 * ("since we last talked") tells nothing a memory keeps.
 */
const compressor = new OfflineCompressor();
const turns = [
  "Caroline: Hey Mel! Been a busy week since we talked. I went to a council meeting for adoption on Friday, and I'm proud of myself for speaking up.",
  'Melanie: Wow, Caroline! Last Friday I finally took my kids to a pottery workshop downtown.',
  "Caroline: How'd they like it?",
  'Melanie: The kids loved it! They each made a clay bowl with their names on it.',
];
const v1Of = async (text: string) => {
  const request: CompressionRequest = {
    memoryId: 'm',
    language: 'en',
    personality: '',
    roleCard: { userId: 'u', language: 'en' },
    text,
    targetLength: { min: 60, max: 400 },
  };
  return (await compressor.compressV1(request)).fields.compressedContent;
};
/** The same for a Chinese chat of user and assistant turns, for 小暖. */
const v1OfZh = async (text: string) => {
  const request: CompressionRequest = {
    memoryId: 'm',
    language: 'zh',
    personality: '',
    roleCard: { userId: 'u', language: 'zh', name: '小暖' },
    text,
    speakers: ['user', 'assistant'],
    targetLength: { min: 20, max: 200 },
  };
  return (await compressor.compressV1(request)).fields.compressedContent;
};
const source = {
  language: 'en' as const,
  turns: turns.map((t) => {
    const [role, text] = t.split(': ');
    return { role: role!, text: t.slice(role!.length + 2) || text! };
  }),
  names: [],
};

describe('quoted as said (quoted.test.ts)', () => {
  it('quotes a question it cannot turn into indirect speech, never "asked about" a statement', async () => {
    const v1 = await v1Of(turns.join('\n'));
    expect(v1).toContain('Caroline asked, "How\'d they like it?"');
    expect(v1).not.toMatch(/asked about/);
  });

  it('quotes a named speaker\'s sentence with "myself": no "Caroline is proud of myself"', async () => {
    const v1 = await v1Of(turns.join('\n'));
    expect(v1).toContain('Caroline said, "');
    expect(v1).toContain('proud of myself');
    expect(v1).not.toMatch(/Caroline(?:'s| is)? proud of myself/);
  });

  it('keeps no catching-up line', async () => {
    const v1 = await v1Of(turns.join('\n'));
    expect(v1).not.toMatch(/busy week|since we talked/);
    expect(v1).toContain('pottery workshop');
  });

  it('writes nothing the faithfulness check refuses', async () => {
    const v1 = await v1Of(turns.join('\n'));
    expect(inventedSpans(v1, source)).toEqual([]);
  });

  it('writes a statement whose "I" was left out with its speaker, never "Joanna said had…"', async () => {
    const text = [
      'Joanna: Hey Nate! Had an audition yesterday for a writing gig. Mixed emotions.',
      'Nate: Congrats! I was busy too - went to a community meetup last Friday.',
      'Joanna: Nice! Who did you meet there?',
      'Nate: Mostly gamers from my tournament team.',
    ].join('\n');
    const v1 = await v1Of(text);
    expect(v1).toContain('Joanna had an audition yesterday');
    expect(v1).not.toMatch(/said (?:had|went)\b/);
    const lines = text
      .split('\n')
      .map((l) => ({ role: l.split(': ')[0]!, text: l.slice(l.indexOf(': ') + 2) }));
    expect(inventedSpans(v1, { language: 'en', turns: lines, names: ['Joanna', 'Nate'] })).toEqual([]);
  });

  it('sets a quote inside a quote apart from the word it touched: no "says\'Let" nobody said', async () => {
    const text = [
      'Jolene: Hey Deb! I finally found a quiet place to chill by the lake.',
      'Deborah: Glad you did. A friend wrote this quote to me. It says"Let go of what no longer serves you."',
      'Jolene: That is a good reminder to stay focused on my studies.',
      'Deborah: I read it every morning before yoga.',
    ].join('\n');
    const v1 = await v1Of(text);
    expect(v1).toContain("says 'Let go of what no longer serves you.'");
    const lines = text
      .split('\n')
      .map((l) => ({ role: l.split(': ')[0]!, text: l.slice(l.indexOf(': ') + 2) }));
    expect(inventedSpans(v1, { language: 'en', turns: lines, names: ['Deborah', 'Jolene'] })).toEqual([]);
  });

  it('tells a question someone else asked, quoted in the user\'s words: never "你问妈又问你…", never refused', async () => {
    const turns = [
      { role: 'user', text: '挺热闹的。不过我妈又问我：“你什么时候结婚？”我不想回答她。' },
      { role: 'assistant', text: '这种问题确实让人有压力。你自己怎么想呢？' },
      { role: 'user', text: '我觉得我还没准备好，我不喜欢被催。' },
    ];
    const v1 = await v1OfZh(turns.map((t) => `${t.role}: ${t.text}`).join('\n'));
    // The quote as said, its 你 the mother's words; the sentence after it the user's own.
    expect(v1).toContain('你妈又问你：“你什么时候结婚？”');
    expect(v1).not.toMatch(/你问/);
    expect(inventedSpans(v1, { language: 'zh', turns, names: ['小暖'] })).toEqual([]);
  });

  it('quotes a question of the user as "you" about the companion\'s "you": never "whether you haven\'t been listening to you"', async () => {
    const v1 = await v1Of(
      [
        "user: Where were you when I needed you? Haven't you been listening to me?",
        "assistant: I'm sorry. Where did you go last night?",
        "user: Who cares? Wasn't it obvious I was sad? Won't anyone help me?",
      ].join('\n'),
    );
    expect(v1).not.toMatch(/you (?:haven't been listening|were when)/);
    const v1zh = await v1OfZh(
      'user: 我需要你的时候你在哪里？你到底有没有在听我说话？\nassistant: 对不起。\nuser: 谁在乎呢？难道看不出来我很难过吗？',
    );
    expect(v1zh).not.toMatch(/你问(?:需要你的时候你在哪里|你到底有没有在听你)/u);
  });
});
