import { describe, expect, it } from 'vitest';
import { checkOutput, describeFinding, isFatal } from './gates.js';

describe('checkOutput: the one check of a stage output', () => {
  const target = { min: 4, max: 10 };

  it('finds nothing wrong with text of the right language and length', () => {
    expect(checkOutput('我们去了杭州西湖', target, 'zh')).toEqual({ length: 8, findings: [] });
  });

  it('reports empty output as fatal, and its length as out of range', () => {
    const { findings } = checkOutput('', target, 'zh');
    expect(findings).toEqual([{ kind: 'empty' }, { kind: 'out_of_range', length: 0, target }]);
    expect(findings.map(isFatal)).toEqual([true, false]);
  });

  it('reports the wrong language as fatal, measured in code points, never the model’s claim', () => {
    const { findings, length } = checkOutput('We went to the lake', { min: 1, max: 30 }, 'zh');
    expect(length).toBe(19);
    expect(findings).toEqual([{ kind: 'wrong_language', expected: 'zh' }]);
    expect(describeFinding(findings[0]!, 50)).toBe('the memory is in zh but the compressed text is not');
  });

  it('reports a length out of range as a warning-level finding, with the numbers', () => {
    const { findings } = checkOutput('我们去了杭州西湖，看了断桥和雷峰塔', target, 'zh');
    expect(findings).toEqual([{ kind: 'out_of_range', length: 17, target }]);
    expect(isFatal(findings[0]!)).toBe(false);
    expect(describeFinding(findings[0]!, 40)).toBe('length 17 is outside the target 4-10 (input 40)');
  });
});
