import { describe, expect, it } from 'vitest';
import { describeMissing, extractFacts, holdsFact, normalise, retention } from './facts.js';

const kinds = (facts: readonly { kind: string; text: string }[]) => facts.map((f) => `${f.kind}:${f.text}`);

describe('extractFacts', () => {
  it('English: dates, numbers, names, places, plans and the topic; labels and vocatives are not facts', () => {
    const text = [
      'Maya: Hey Sam! I moved to Lisbon on 7 May 2023 with my sister Ana.',
      'Sam: Thanks, Maya! How is Lisbon?',
      'Maya: The rent is 900 euros. Ana loves it, and I am going to adopt a puppy next week.',
      'Sam: We watched Game of Thrones there.',
    ].join('\n');
    const facts = kinds(extractFacts(text, 'en'));
    expect(facts).toEqual(
      expect.arrayContaining([
        'date:7 May 2023',
        'date:next week',
        'number:900 euros',
        'topic:Lisbon',
        'name:Ana',
        // A title keeps its small words, as written: the output holds it so.
        'name:Game of Thrones',
        'plan:going to adopt a puppy next',
      ]),
    );
    // "Sam" and "Maya" are only labels and names being addressed; 2023 is part of the date.
    expect(facts.join(' ')).not.toMatch(/Sam|Maya|number:2023|number:7/);
  });

  it('Chinese: dates, places by their endings, titles, names given with 叫, plans, numbers with units', () => {
    const text = [
      'user: 我下周二打算去杭州看《恋爱的犀牛》。',
      'assistant: 那你住在北京市东城区吗？',
      'user: 对，我的猫叫团子，门票是40元，2023年5月7日买的。',
    ].join('\n');
    const facts = kinds(extractFacts(text, 'zh'));
    expect(facts).toEqual(
      expect.arrayContaining([
        'date:下周二',
        'date:2023年5月7日',
        'plan:打算去杭州',
        'name:《恋爱的犀牛》',
        'name:团子',
        'place:北京市',
        'place:东城区',
        'number:40元',
      ]),
    );
    expect(facts.join(' ')).not.toMatch(/user|assistant|number:2023|一个/);
  });
});

describe('retention', () => {
  it('counts the facts of the input the output still holds, and names the missing ones by kind', () => {
    const input =
      'Maya: I moved to Lisbon on 7 May 2023. The rent is 900 euros. I visited Porto in June 2022.';
    const good = retention(
      input,
      'Maya moved to Lisbon on 7 May 2023; the rent is 900 euros; Porto in June 2022.',
      'en',
    );
    expect(good).toMatchObject({ facts: 5, kept: 5, share: 1, missing: [] });
    const bad = retention(input, 'Maya moved somewhere nice.', 'en');
    expect(bad).toMatchObject({ facts: 5, kept: 0, share: 0 });
    expect(describeMissing(bad.missing)).toBe('2 dates, 1 number, 2 places');

    const zh = retention('user: 我三月搬到了杭州市，房租3000元。', '你三月搬到了杭州市。', 'zh');
    expect(zh).toMatchObject({ facts: 3, kept: 2 });
    expect(zh.missing.map((f) => f.text)).toEqual(['3000元']);
  });

  it('an input without facts has no share', () => {
    expect(retention('Hi! How are you?', 'Hi.', 'en')).toMatchObject({ facts: 0, share: null });
  });

  it('normalised match ignores case, spaces and punctuation, never matches an empty fact', () => {
    expect(holdsFact(normalise('We met on 7 May, 2023!'), '7 may 2023')).toBe(true);
    expect(holdsFact(normalise('北京市 东城区。'), '北京市东城区')).toBe(true);
    expect(holdsFact(normalise('We met in May.'), '7 May 2023')).toBe(false);
    expect(holdsFact(normalise('anything'), ' . ')).toBe(false);
  });
});
