import { describe, expect, it } from 'vitest';
import { checkOutput, describeFinding, isFatal } from './gates.js';

describe('checkOutput: the one check of a stage output', () => {
  const target = { min: 4, max: 10 };

  it('finds nothing wrong with text of the right language and length', () => {
    expect(checkOutput('我们去了杭州西湖', target, 'zh', '我们去了杭州西湖，很开心')).toEqual({
      length: 8,
      findings: [],
    });
  });

  it('reports empty output as fatal, and its length as out of range', () => {
    const { findings } = checkOutput('', target, 'zh', '西湖');
    expect(findings).toEqual([{ kind: 'empty' }, { kind: 'out_of_range', length: 0, target }]);
    expect(findings.map(isFatal)).toEqual([true, false]);
  });

  it('reports the wrong language as fatal, measured in code points, never the model’s claim', () => {
    const { findings, length } = checkOutput(
      'We went to the lake',
      { min: 1, max: 30 },
      'zh',
      '我们去了西湖',
    );
    expect(length).toBe(19);
    expect(findings).toEqual([{ kind: 'wrong_language', expected: 'zh' }]);
    expect(describeFinding(findings[0]!, 50)).toBe('the memory is in zh but the compressed text is not');
  });

  it("reads a stage without the role card's names: an English memory of a user called 欧阳娜娜 is English", () => {
    const wide = { min: 1, max: 500 };
    const stage = '欧阳娜娜 said 欧阳娜娜 is happy today.';
    expect(checkOutput(stage, wide, 'en', 'user: I am happy', ['Juno', '欧阳娜娜']).findings).toEqual([]);
    // Without the names it reads as Chinese; and a stage of the names alone is still read as written.
    expect(checkOutput(stage, wide, 'en', 'user: I am happy').findings).toEqual([
      { kind: 'wrong_language', expected: 'en' },
    ]);
    expect(checkOutput('欧阳娜娜。', wide, 'en', 'user: hi', ['欧阳娜娜']).findings).toEqual([
      { kind: 'wrong_language', expected: 'en' },
    ]);
  });

  it('takes a stage in either language from a chat whose speakers write both (words kept as said)', () => {
    const wide = { min: 1, max: 500 };
    const source = 'user: I went to the park today and saw a dog.\nassistant: 真好！你今天过得开心吗？';
    expect(checkOutput('You went to the park today and saw a dog.', wide, 'zh', source).findings).toEqual([]);
    expect(
      checkOutput('You went to the park today.', wide, 'zh', 'user: 我今天去了公园，看到了一只狗。').findings,
    ).toEqual([{ kind: 'wrong_language', expected: 'zh' }]);
  });

  it('reports a stage in a third language as the wrong one: Spanish for English, Japanese for Chinese', () => {
    const wide = { min: 1, max: 500 };
    const spanish =
      'Sam me contó que mañana tiene una entrevista en Boston y que está muy nervioso, pero yo le dije que se preparó mucho.';
    const japanese =
      'サムは明日ボストンで面接があると言って、とても緊張していた。私は彼がよく準備したと励ました。';
    expect(checkOutput(spanish, wide, 'en', 'user: tomorrow is my interview').findings).toEqual([
      { kind: 'wrong_language', expected: 'en' },
    ]);
    expect(checkOutput(japanese, wide, 'zh', '明天我在波士顿面试，我好紧张').findings).toEqual([
      { kind: 'wrong_language', expected: 'zh' },
    ]);
  });

  it('reports a length out of range as a warning-level finding, with the numbers', () => {
    const { findings } = checkOutput('我们去了杭州西湖，看了断桥和雷峰塔', target, 'zh', '西湖');
    expect(findings).toEqual([{ kind: 'out_of_range', length: 17, target }]);
    expect(isFatal(findings[0]!)).toBe(false);
    expect(describeFinding(findings[0]!, 40)).toBe('length 17 is outside the target 4-10 (input 40)');
  });

  it('keeps traditional characters traditional: a simplified text of a traditional memory is fatal', () => {
    const source = '你說今天你去參加了奶奶的葬禮，你真的好難過。這一天一定很辛苦。';
    const wide = { min: 1, max: 100 };
    const simplified = checkOutput(
      '你说今天你去参加了奶奶的葬礼，你真的好难过。这一天一定很辛苦。',
      wide,
      'zh',
      source,
    );
    expect(simplified.findings).toEqual([{ kind: 'wrong_script', expected: 'traditional' }]);
    expect(isFatal(simplified.findings[0]!)).toBe(true);
    expect(describeFinding(simplified.findings[0]!, 40)).toBe(
      'the memory is in traditional Chinese characters but the compressed text is not',
    );
    // Traditional, or too short to tell: kept.
    expect(checkOutput('你說今天你去參加了奶奶的葬禮，你真的好難過。', wide, 'zh', source).findings).toEqual(
      [],
    );
    expect(checkOutput('奶奶的葬禮。', wide, 'zh', source).findings).toEqual([]);
    // And the other way: a simplified memory written in traditional characters.
    const simplifiedSource = '你说今天你去参加了奶奶的葬礼，这天很难过';
    const traditional = checkOutput('你說今天你去參加了奶奶的葬禮。這天很難過', wide, 'zh', simplifiedSource);
    expect(traditional.findings).toEqual([{ kind: 'wrong_script', expected: 'simplified' }]);
    // A chat whose speakers write in both scripts: its stage may be in either.
    const mixed = `${source}${simplifiedSource}`;
    expect(checkOutput('你說今天你去參加了奶奶的葬禮。這天很難過', wide, 'zh', mixed).findings).toEqual([]);
    expect(checkOutput('你说今天你去参加了奶奶的葬礼，这天很难过', wide, 'zh', mixed).findings).toEqual([]);
  });
});
