import { describe, expect, it } from 'vitest';
import { holdsFact, normalise } from './dataset.js';
import { DatasetError, parseJsonl, parseKdconv, parseLocomo } from './loaders.js';
import { sample, select } from './sample.js';

describe('loaders', () => {
  it('LoCoMo: a session holds the facts and questions whose evidence is only in it', () => {
    const [first, second] = parseLocomo([
      {
        sample_id: 'conv-1',
        conversation: {
          session_1: [
            { speaker: 'A', dia_id: 'D1:1', text: 'I ran a race.' },
            { speaker: 'B', dia_id: 'D1:2', text: 'Look!', blip_caption: 'a photo of a medal' },
          ],
          session_2: [{ speaker: 'A', dia_id: 'D2:1', text: 'Back home.' }],
          session_2_date_time: '1 May 2023',
        },
        qa: [
          { question: 'What did A run?', answer: 'a race', evidence: ['D1:1'], category: 4 },
          { question: 'When?', answer: 2022, evidence: ['D1:2'], category: 2 },
          { question: 'Both?', answer: 'x', evidence: ['D1:1', 'D2:1'], category: 1 },
          { question: 'What did B win?', evidence: ['D1:2'], category: 5, adversarial_answer: 'gold' },
        ],
      },
    ]);
    expect(first!.id).toBe('conv-1/session_1');
    expect(first!.turns[1]).toEqual({ role: 'B', text: 'Look! [shares a photo: a photo of a medal]' });
    expect(first!.facts.map((f) => f.text)).toEqual(['a race', '2022']);
    expect(first!.questions).toEqual([
      { question: 'What did A run?', answer: 'a race', category: 4, adversarial: false },
      { question: 'When?', answer: '2022', category: 2, adversarial: false },
      { question: 'What did B win?', category: 5, adversarial: true },
    ]);
    expect(second!.facts).toEqual([]);
    expect(second!.questions).toEqual([]);
  });

  it('KdConv: a triple used by several utterances is one fact', () => {
    const attrs = [{ name: '故宫', attrname: '地址', attrvalue: '北京市东城区' }];
    const [dialogue] = parseKdconv([
      {
        messages: [
          { message: '故宫在哪？' },
          { message: '在北京市东城区。', attrs },
          { message: '东城区。', attrs },
        ],
      },
    ]);
    expect(dialogue!.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(dialogue!.facts).toEqual([{ text: '北京市东城区', entity: '故宫', attribute: '地址' }]);
  });

  it('JSONL: a question without an answer is adversarial; a bad line is named', () => {
    const [c] = parseJsonl(
      '{"id":1,"turns":[{"role":"user","text":"hi"}],"facts":["hi"],"questions":[{"question":"q?"}]}\n\n',
    );
    expect(c).toMatchObject({
      id: '1',
      facts: [{ text: 'hi' }],
      questions: [{ question: 'q?', adversarial: true }],
    });
    expect(c!.language).toBeUndefined();
    expect(() => parseJsonl('{"id":"a","turns":[]}')).toThrow(DatasetError);
    expect(() => parseJsonl('{"id":"a","turns":[{"role":"u","text":"x"}]}\nnot json')).toThrow(/line 2/);
  });

  it('normalised match ignores case, spaces and punctuation, never matches an empty fact', () => {
    expect(holdsFact(normalise('We met on 7 May, 2023!'), '7 may 2023')).toBe(true);
    expect(holdsFact(normalise('北京市 东城区。'), '北京市东城区')).toBe(true);
    expect(holdsFact(normalise('We met in May.'), '7 May 2023')).toBe(false);
    expect(holdsFact(normalise('anything'), ' . ')).toBe(false);
  });
});

describe('sampling', () => {
  const items = Array.from({ length: 50 }, (_, i) => i);

  it('draws the same sample for the same seed, another for another seed, in the original order', () => {
    const a = sample(items, 10, 7);
    expect(sample(items, 10, 7)).toEqual(a);
    expect(sample(items, 10, 8)).not.toEqual(a);
    expect(new Set(a).size).toBe(10);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
  });

  it('samples first, then limits', () => {
    expect(select(items, { limit: 3 })).toEqual([0, 1, 2]);
    expect(select(items, { sample: 10, seed: 7, limit: 3 })).toEqual(sample(items, 10, 7).slice(0, 3));
    expect(select(items, { sample: 100 })).toEqual(items);
  });
});
