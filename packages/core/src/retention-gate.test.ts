import { describe, expect, it } from 'vitest';
import {
  RetentionGateError,
  retentionFeedback,
  retentionGate,
  retentionShortfall,
} from './retention-gate.js';
import { stagePolicy } from './stage-policy.js';

const INPUT_EN =
  'Maya: I moved to Lisbon on 7 May 2023. The rent is 900 euros. My sister Ana visits Porto in June 2022.';
const INPUT_ZH = 'user: 我2023年5月7日搬到了杭州市，房租3000元，我的猫叫团子。';
const spent = {
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  model: 'm',
};

describe('the retention gate', () => {
  it('passes an output that keeps enough of its input facts', () => {
    const good = 'Maya moved to Lisbon on 7 May 2023; rent 900 euros; Ana visits Porto in June 2022.';
    expect(retentionGate('v1', 'm1', INPUT_EN, good, 'en', stagePolicy(), spent)).toBeUndefined();
    expect(
      retentionGate(
        'v2',
        'm1',
        INPUT_ZH,
        '你2023年5月7日搬到杭州市，房租3000元，猫叫团子。',
        'zh',
        stagePolicy(),
        spent,
      ),
    ).toBe(undefined);
  });

  it('warns, naming counts and kinds but never the facts themselves', () => {
    const warning = retentionGate('v2', 'm1', INPUT_EN, 'Maya moved to Lisbon.', 'en', stagePolicy(), spent);
    expect(warning).toBe(
      'retention: V2 keeps 1 of the 6 facts of its input (17%, below RETENTION_MIN_V2 50%); ' +
        'missing 2 dates, 1 number, 2 names',
    );
    expect(warning).not.toMatch(/Porto|900|Ana/);
  });

  it('refuses with RETENTION_GATE=refuse, carrying what the calls cost', () => {
    const policy = stagePolicy({ retention: { gate: 'refuse', minV1: 0.6, minV2: 0.5 } });
    let error: unknown;
    try {
      retentionGate('v1', 'm1', INPUT_ZH, '你搬家了。', 'zh', policy, spent);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RetentionGateError);
    expect((error as RetentionGateError).message).toMatch(/^memory m1: retention: V1 keeps 0 of the 4 facts/);
    expect((error as RetentionGateError).spent).toEqual(spent);
  });

  it('does not judge an input with fewer than 3 facts, nor a stage whose minimum is 0', () => {
    expect(retentionShortfall('user: 我搬到了杭州市。', '你搬家了。', 'zh', 0.6)).toBeUndefined();
    const off = stagePolicy({ retention: { gate: 'refuse', minV1: 0, minV2: 0 } });
    expect(retentionGate('v1', 'm1', INPUT_EN, 'Nothing.', 'en', off, spent)).toBeUndefined();
  });

  it("the repair turn names the missing facts in the memory's language", () => {
    expect(retentionFeedback(INPUT_ZH, '你搬到了杭州市。', 'zh', 0.6, 'compressedContent')).toBe(
      'compressedContent 只保留了输入中 4 个事实里的 1 个（需要至少60%），请保留这些事实：2023年5月7日、团子、3000元',
    );
    expect(
      retentionFeedback(INPUT_EN, 'Maya moved to Lisbon on 7 May 2023.', 'en', 0.6, 'coreMemory'),
    ).toMatch(
      /^coreMemory keeps 2 of the 6 facts of the input \(at least 60% are needed\); keep these: June 2022; 900 euros; /,
    );
    expect(retentionFeedback(INPUT_EN, INPUT_EN, 'en', 0.6, 'coreMemory')).toBeUndefined();
  });
});
