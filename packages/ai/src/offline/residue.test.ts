/**
 * The residue (residue.ts), the feeling a memory keeps: the user's loss, fear or pride, gratitude
 * and not thanks, a negated joy as sadness, none where nothing was felt; with it, which question is
 * a worry and which curiosity (isConcern, questions.ts).
 */
import { describe, expect, it } from 'vitest';
import { isConcern } from './questions.js';
import { residueOf } from './residue.js';

describe("the residue is the user's feeling", () => {
  it('knows loss, fear and pride with sadness, in both languages', () => {
    expect(residueOf(['Your cat Miso died this morning.'], 1, 'en').dominantEmotion).toBe('grief');
    expect(residueOf(['You said proud but sad today.', 'Lily cried.'], 2, 'en').dominantEmotion).toBe(
      'pride and sadness',
    );
    expect(residueOf(['你的仓鼠团团今天早上死了。'], 1, 'zh').dominantEmotion).toBe('悲痛');
    expect(residueOf(['你很自豪，但是也有点难过。'], 1, 'zh').dominantEmotion).toBe('自豪与悲伤');
    expect(residueOf(["You're scared he'll say you're being needy."], 1, 'en').dominantEmotion).toBe('fear');
  });

  it('lets a loss told among pleasures linger, not the pleasures (the demo: the view, the grandmother)', () => {
    const said = [
      'You finally visited the old harbour today and the view from the hill was amazing.',
      'You just wanted to enjoy the moment for once.',
      'You said not since she passed away in 2019.',
    ];
    expect(residueOf(said, 8, 'en')).toMatchObject({ dominantEmotion: 'grief', summary: said[2] });
  });

  it('tells a worry from curiosity, and thanks from gratitude', () => {
    expect(isConcern('为什么朵朵今天不跟我玩了？', 'zh')).toBe(true);
    expect(isConcern('如果我考不好，妈妈会不高兴的吗？', 'zh')).toBe(true);
    expect(isConcern('它为什么叫这个名字？', 'zh')).toBe(false);
    expect(isConcern('如果在这里玩完还可以去哪个景点？', 'zh')).toBe(false);
    expect(isConcern('What if they ask why I want to leave?', 'en')).toBe(true);
    expect(isConcern('What if we go on Sunday instead?', 'en')).toBe(true);
    expect(isConcern('Is it open on Sunday?', 'en')).toBe(false);
    expect(residueOf(['你说谢谢啊！'], 1, 'zh').dominantEmotion).toBe('');
    expect(residueOf(['You are so grateful for her help.'], 1, 'en').dominantEmotion).toBe('gratitude');
  });

  it('reads a negated joy as sadness, and gives no residue where nothing was felt', () => {
    expect(residueOf(['妈妈会不高兴的。'], 1, 'zh').dominantEmotion).toBe('悲伤');
    expect(residueOf(['你下周三去上海出差。'], 1, 'zh')).toEqual({
      dominantEmotion: '',
      intensity: 0,
      summary: '',
    });
  });
});
