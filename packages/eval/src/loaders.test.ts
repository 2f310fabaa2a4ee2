import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsFact, normalise } from './dataset.js';
import {
  DatasetError,
  loadDataset,
  locomoDate,
  parseDulemon,
  parseJsonl,
  parseKdconv,
  parseLocomo,
  parseMemorybank,
  unsegment,
} from './loaders.js';
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
    expect(() => parseJsonl('{"id":"a","date":"yesterday","turns":[{"role":"u","text":"x"}]}')).toThrow(
      'line 1: date: expected an ISO 8601 date or date-time (2023-05-08, 2023-05-08T13:56:00Z)',
    );
  });

  it('names the file whose line or field is wrong: of several sets, the one to fix', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memfade-loaders-'));
    try {
      const file = join(dir, 'second.jsonl');
      await writeFile(file, '{"id":"a","turns":[{"role":"user"}]}\n');
      await expect(loadDataset(file, 'jsonl')).rejects.toThrow(
        `${file}: line 1: turns.0.text: Invalid input: expected string, received undefined`,
      );
      await writeFile(file, '[{"no":"messages"}]');
      await expect(loadDataset(file, 'kdconv')).rejects.toThrow(`${file}: kdconv: 0.messages:`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('normalised match ignores case, spaces and punctuation, never matches an empty fact', () => {
    expect(holdsFact(normalise('We met on 7 May, 2023!'), '7 may 2023')).toBe(true);
    expect(holdsFact(normalise('北京市 东城区。'), '北京市东城区')).toBe(true);
    expect(holdsFact(normalise('We met in May.'), '7 May 2023')).toBe(false);
    expect(holdsFact(normalise('anything'), ' . ')).toBe(false);
  });
});

describe('what a set says about a memory: its date, its speakers, its topic, its persona', () => {
  it('LoCoMo: the session date, the first speaker as the user and the second as the persona', () => {
    expect(locomoDate('1:56 pm on 8 May, 2023')).toEqual(new Date('2023-05-08T13:56:00Z'));
    expect(locomoDate('12:09 am on 13 September, 2023')).toEqual(new Date('2023-09-13T00:09:00Z'));
    expect(locomoDate('soon')).toBeUndefined();
    const [session] = parseLocomo([
      {
        sample_id: 'c',
        conversation: {
          speaker_a: 'Caroline',
          speaker_b: 'Melanie',
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: [{ speaker: 'Caroline', dia_id: 'D1:1', text: 'Hi Mel!' }],
        },
        qa: [],
      },
    ]);
    expect(session).toMatchObject({
      date: new Date('2023-05-08T13:56:00Z'),
      userRole: 'Caroline',
      roleCard: { name: 'Melanie', userName: 'Caroline' },
    });
  });

  it('KdConv: the dialogue is about its `name`', () => {
    const [d] = parseKdconv([{ name: '故宫', messages: [{ message: '故宫在哪？' }] }]);
    expect(d).toMatchObject({ topic: '故宫', userRole: 'user' });
  });

  it("MemoryBank: the user's profile is the role card, the day is the date", () => {
    const [day] = parseMemorybank({
      u1: {
        name: '张曼婷',
        meta_information: {
          name: '张曼婷',
          personality: '温柔',
          hobbies: '绘画',
          speaking_style: '柔声细语',
        },
        history: { '2023-04-27': [{ query: '你好', response: '你好！' }] },
      },
    });
    expect(day).toMatchObject({
      id: 'u1/2023-04-27',
      date: new Date('2023-04-27T12:00:00Z'),
      roleCard: { userName: '张曼婷', personality: '温柔', hobbies: '绘画', speakingStyle: '柔声细语' },
    });
  });

  it("DuLeMon: words joined again, Usr is the user, the bot's persona is the role card; a bad line is named", () => {
    expect(unsegment('我 在 IT 部门 工作 ， 15 年 of hard work')).toBe('我在IT部门工作，15年of hard work');
    const line = JSON.stringify({
      bot_persona: ['B1: 我 喜欢 逻辑 思维', 'B2: 我 三十 岁'],
      conversation: ['Usr: 下午 一起 去 打球 吗\tU1', 'Bot: 打 什么 球'],
    });
    const [session] = parseDulemon(`${line}\n`);
    expect(session).toMatchObject({
      id: 'dulemon/1',
      language: 'zh',
      turns: [
        { role: 'user', text: '下午一起去打球吗' },
        { role: 'assistant', text: '打什么球' },
      ],
      roleCard: { personality: '我喜欢逻辑思维；我三十岁' },
    });
    expect(() => parseDulemon(`${line}\n{"bot_persona":[]}`)).toThrow(/dulemon line 2: conversation/);
  });

  it('JSONL: roleCard, userRole, topic and date; a bad date is named', () => {
    const [c] = parseJsonl(
      JSON.stringify({
        id: 'a',
        turns: [{ role: 'Maya', text: 'hi' }],
        roleCard: { name: 'Pip', userName: 'Maya', hobbies: 'rivers' },
        userRole: 'Maya',
        topic: 'Lisbon',
        date: '2023-05-08',
      }),
    );
    expect(c).toMatchObject({
      roleCard: { name: 'Pip', userName: 'Maya', hobbies: 'rivers' },
      userRole: 'Maya',
      topic: 'Lisbon',
      date: new Date('2023-05-08T00:00:00Z'),
    });
    expect(() => parseJsonl('{"id":"a","turns":[{"role":"u","text":"x"}],"date":"May 8"}')).toThrow(
      /line 1: date/,
    );
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
