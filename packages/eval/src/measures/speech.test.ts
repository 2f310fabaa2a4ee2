import type { Turn } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { emotionalCore } from './core.js';
import { isFragment } from './fragments.js';
import { fusion } from './fusion.js';
import { labels } from './labels.js';
import { orphans } from './orphans.js';
import { concern, question } from './questions.js';
import { read } from './reading.js';
import { speakers, topic } from './subject.js';
import type { MemoryView } from './types.js';
import { userShare } from './user-share.js';

/**
 * How a memory reads (issue 26): each measure fails on a memory with the fault and passes on one
 * without it, in Chinese and in English. The memories are small, written by hand.
 */

const ZH: Turn[] = [
  { role: 'user', text: '我最好的朋友小王下个月要结婚了。' },
  { role: 'assistant', text: '太好了！他现在在哪里？' },
  { role: 'user', text: '他现在在杭州做程序员，邀请我去当伴郎。' },
  { role: 'assistant', text: '差不多五年了吧。我也会有点紧张呢。' },
  { role: 'user', text: '如果我考不好，妈妈会不高兴吗？' },
];
const EN: Turn[] = [
  { role: 'Caroline', text: 'Hey Mel! Good to see you!' },
  { role: 'Melanie', text: "I'm swamped with the kids and work. I painted a lake sunrise last year." },
  { role: 'Caroline', text: 'I went to a support group yesterday. It was so powerful.' },
  { role: 'Caroline', text: "Why isn't Jimmy paying attention to me anymore?" },
];

function view(turns: Turn[], v2: string, extra: Partial<MemoryView> = {}): MemoryView {
  const zh = turns === ZH;
  return {
    language: zh ? 'zh' : 'en',
    turns,
    userRole: turns[0]!.role,
    minInputChars: 100,
    targets: {
      v1Ratio: { min: 0.3, max: 0.5 },
      v2Length: zh ? { min: 100, max: 200 } : { min: 250, max: 500 },
    },
    v2: {
      text: v2,
      inputLength: 200,
      skipped: false,
      points: [],
      residue: { dominantEmotion: '', summary: '' },
    },
    ...extra,
  };
}

const check = (measure: typeof labels, v: MemoryView) => measure(read(v), 'v2');

describe('labels', () => {
  it('fails on role labels in any language, and on the speakers own names used as labels', () => {
    expect(check(labels, view(ZH, 'user: 我也会有点紧张呢。'))).toMatchObject({ ok: false, severity: 1 });
    expect(check(labels, view(ZH, '小王要结婚了。用户：好的。'))).toMatchObject({ ok: false });
    expect(check(labels, view(EN, 'Went to a group. Melanie: I painted a sunrise.'))).toMatchObject({
      ok: false,
      quote: 'Melanie: I painted a sunrise.',
    });
  });
  it('passes on prose that names the speakers without labels', () => {
    expect(check(labels, view(ZH, '你的朋友小王下个月在杭州结婚，请你当伴郎。'))!.ok).toBe(true);
    expect(check(labels, view(EN, 'Caroline went to a support group; Melanie painted a sunrise.'))!.ok).toBe(
      true,
    );
  });
});

describe('fusion', () => {
  it("fails when both speakers' first-person sentences run together without attribution", () => {
    expect(check(fusion, view(ZH, '他现在在杭州做程序员，邀请我去当伴郎。我也会有点紧张呢。'))!.ok).toBe(
      false,
    );
    expect(
      check(fusion, view(EN, "I went to a support group yesterday. I'm swamped with the kids and work.")),
    ).toMatchObject({
      ok: false,
    });
  });
  it('passes when each statement says who it is about', () => {
    // The companion's voice (我 the companion, 你 the user) with reporting words, or the user named.
    expect(
      check(fusion, view(ZH, '你说小王在杭州做程序员，邀请你去当伴郎。我说我也会有点紧张呢。'))!.ok,
    ).toBe(true);
    const text = "Maya and I went to a support group yesterday. I'm swamped with the kids and work.";
    const named = view(EN, text, {
      turns: [
        { role: 'user', text: 'I went to a support group yesterday.' },
        { role: 'assistant', text: "I'm swamped with the kids and work." },
      ],
      userRole: 'user',
      knownNames: ['Maya'],
    });
    expect(check(fusion, named)!.ok).toBe(true);
    // Without the role card's name, the same memory fuses the two speakers' "I".
    expect(check(fusion, { ...named, knownNames: [] })!.ok).toBe(false);
    expect(check(fusion, view(ZH, '你说小王在杭州做程序员，邀请你去当伴郎。'))!.ok).toBe(true);
    // 自我 is a word, no first person: one speaker's 我 fuses with nobody's.
    const self = view(ZH, '他对生命和自我有了新的认识。我也想去看看了。', {
      turns: [
        { role: 'user', text: '他对生命和自我有了新的认识。' },
        { role: 'assistant', text: '我也想去看看了。' },
      ],
    });
    expect(check(fusion, self)!.ok).toBe(true);
    expect(
      check(fusion, view(EN, 'Caroline went to a support group. Melanie is swamped with the kids.'))!.ok,
    ).toBe(true);
  });
});

describe('questions', () => {
  it('a copied question fails; the concern behind it passes', () => {
    expect(check(question, view(ZH, '如果我考不好，妈妈会不高兴吗？'))!.ok).toBe(false);
    expect(check(question, view(EN, "Why isn't Jimmy paying attention to me anymore?"))!.ok).toBe(false);
    expect(check(question, view(ZH, '你担心如果考不好，妈妈会不高兴。'))!.ok).toBe(true);
    expect(check(question, view(EN, 'Caroline worries that Jimmy is not paying attention to her.'))!.ok).toBe(
      true,
    );
  });
  it("the user's concern is kept as a statement, not dropped", () => {
    expect(check(concern, view(EN, 'Caroline worries that Jimmy stopped paying attention to her.'))!.ok).toBe(
      true,
    );
    expect(check(concern, view(EN, 'Caroline went to a support group.'))).toMatchObject({
      ok: false,
      quote: "Why isn't Jimmy paying attention to me anymore?",
    });
    expect(check(concern, view(ZH, '你担心考不好，妈妈会不高兴。'))!.ok).toBe(true);
    expect(check(concern, view(ZH, '小王下个月结婚。'))!.ok).toBe(false);
  });
});

describe('subject', () => {
  it('the labelled topic must be named, not only referred to', () => {
    const zh = { topic: '保利剧院' };
    expect(check(topic, view(ZH, '它在北京市东城区，门票40元。', zh))).toMatchObject({ ok: false });
    expect(check(topic, view(ZH, '保利剧院在北京市东城区，门票40元。', zh))!.ok).toBe(true);
    expect(check(topic, view(EN, 'Caroline went to a group.'))).toBeUndefined();
  });
  it('named speakers must be named; role words are not names', () => {
    expect(check(speakers, view(EN, 'I went to a support group.'))).toMatchObject({
      ok: false,
      note: 'does not name Caroline, Melanie',
    });
    expect(check(speakers, view(EN, 'Caroline went to a support group; Melanie painted.'))!.ok).toBe(true);
    expect(check(speakers, view(ZH, '小王要结婚了。'))).toBeUndefined();
  });
});

describe('orphans', () => {
  it('fails on a sentence leaning on one that is gone, and on a bare number or date', () => {
    expect(check(orphans, view(ZH, '它是2001年12月28日上映的。177。'))).toMatchObject({
      ok: false,
      severity: 2,
    });
    expect(check(orphans, view(ZH, '门票40元。2小时 - 4小时。'))).toMatchObject({ ok: false, severity: 1 });
    // "It was so powerful." follows the sentence it leans on in the conversation: not an orphan.
    expect(check(orphans, view(EN, 'I went to a support group yesterday. It was so powerful.'))!.ok).toBe(
      true,
    );
    // Here the sentence before it in the memory is not the one before it in the conversation.
    expect(
      check(orphans, view(EN, "I'm swamped with the kids and work. It was so powerful. 2022.")),
    ).toMatchObject({
      ok: false,
      severity: 2,
    });
  });
  it('fails on an English noun-phrase fragment that follows nothing it leant on, and not on a sentence whose verb is irregular or ends in -s', () => {
    const diet: Turn[] = [
      {
        role: 'user',
        text: 'Dr. Patel wants me to change my diet. Less red meat, more fiber, and walking 30 minutes a day.',
      },
    ];
    expect(
      check(orphans, view(diet, 'Less red meat, more fiber, and walking 30 minutes a day.')),
    ).toMatchObject({
      ok: false,
      severity: 1,
    });
    expect(check(orphans, view(diet, 'Dr. Patel wants you to change your diet.'))!.ok).toBe(true);
    // Right after the sentence it followed in the turn, it leans on that one; after another, on nothing.
    const after = (before: string) =>
      check(orphans, view(diet, `${before} Less red meat, more fiber, and walking 30 minutes a day.`))!.ok;
    expect(after('Dr. Patel wants you to change your diet.')).toBe(true);
    expect(after('You said the new job starts soon.')).toBe(false);
    expect(isFragment('Each stroke carries a part of Melanie.')).toBe(false);
    expect(isFragment('Deborah lost a friend last week.')).toBe(false);
    expect(isFragment('What a sweet idea.')).toBe(true);
    expect(isFragment('Jon also uses a whiteboard to stay on track.')).toBe(false);
    expect(isFragment('The coach really appreciates the boost.')).toBe(false);
    expect(isFragment('Busy with studies but finding time to relax with books.')).toBe(true);
  });
  it('fails on a he or she whose person, named before it in the conversation, the stage never names', () => {
    const rent: Turn[] = [
      { role: 'user', text: 'My rent is going up in January.' },
      { role: 'assistant', text: 'It might help to talk with Priya about it.' },
      {
        role: 'user',
        text: "I'll ask her to coffee on Thursday. My mom will worry, she had a heart attack at 60.",
      },
    ];
    expect(
      check(orphans, view(rent, 'Your rent is going up in January. You will ask her to coffee on Thursday.')),
    ).toMatchObject({ ok: false, severity: 1, quote: 'You will ask her to coffee on Thursday.' });
    expect(
      check(
        orphans,
        view(rent, 'Mia said it might help to talk with Priya. You will ask her to coffee on Thursday.'),
      )!.ok,
    ).toBe(true);
    // The last person named before "she" is the mom, and the stage names her.
    expect(check(orphans, view(rent, 'Your mom will worry, she had a heart attack at 60.'))!.ok).toBe(true);
    // 小王 is named by the person word before him ("我最好的朋友小王"): naming either names him.
    expect(check(orphans, view(ZH, '你最好的朋友下个月要结婚了。他现在在杭州做程序员。'))!.ok).toBe(true);
    expect(check(orphans, view(ZH, '小王下个月要结婚了，他现在在杭州做程序员。'))!.ok).toBe(true);
    expect(check(orphans, view(ZH, '你下个月要去当伴郎，他现在在杭州做程序员。'))).toMatchObject({
      ok: false,
      quote: '你下个月要去当伴郎，他现在在杭州做程序员。',
    });
  });
  it('passes on sentences that stand on their own', () => {
    expect(check(orphans, view(ZH, '小王下个月在杭州结婚，门票40元。'))!.ok).toBe(true);
    expect(check(orphans, view(EN, 'Caroline went to a support group on 7 May 2023.'))!.ok).toBe(true);
  });
});

describe('issue 36: a reported question is a question; the user first', () => {
  it('"你问…" / "X asked whether…" counts as a question; 问题, 问候 and "asked me to" do not', () => {
    expect(check(question, view(ZH, '你问恭王府门票多少钱。'))!.ok).toBe(false);
    expect(check(question, view(EN, 'Melanie asked whether Caroline went to the group.'))!.ok).toBe(false);
    expect(check(question, view(ZH, '你说这个问题很难，还向老师问候了。'))!.ok).toBe(true);
    // Not asking is no question: "你不敢问，怕她说不想跟你做朋友了。" tells a fear.
    expect(check(question, view(ZH, '你不敢问，怕她说不想跟你做朋友了。'))!.ok).toBe(true);
    expect(check(question, view(EN, 'Melanie asked Caroline to paint a lake.'))!.ok).toBe(true);
    // Neither mark nor 问: the rest of a reported question a stage kept alone; a worry is no question.
    expect(check(question, view(ZH, '你说最近压力很大。你有没有什么好的电影推荐给你。'))!.ok).toBe(false);
    expect(check(question, view(ZH, '你担心是不是你报的钢琴课太贵了。'))!.ok).toBe(true);
  });
  it("measures how much of a stage is the user's: the companion's lines taking most of it fail", () => {
    const theirs = check(userShare, view(ZH, '我最好的朋友小王下个月要结婚了。他现在在杭州做程序员。'))!;
    expect(theirs).toMatchObject({ ok: true, note: "100% the user's" });
    const companion = check(userShare, view(ZH, '差不多五年了吧。我也会有点紧张呢。小王下个月结婚。'))!;
    expect(companion.ok).toBe(false);
    expect(companion.note).toMatch(/^\d+% the user's$/);
  });
});

describe('the emotional core', () => {
  const loss: Turn[] = [
    { role: 'user', text: 'I finally visited the old harbour today and the view was amazing.' },
    { role: 'assistant', text: 'Do you still visit the farm?' },
    { role: 'user', text: 'Not since my grandma passed away in 2019. I miss her a lot.' },
    { role: 'user', text: 'My team lead changed three times this year.' },
  ];
  it("fails where the user's first painful turn left no sentence in the stage, and applies only where there is one", () => {
    const kept = check(emotionalCore, view(loss, 'You said not since your grandma passed away in 2019.'));
    expect(kept).toMatchObject({ ok: true });
    const lost = check(emotionalCore, view(loss, 'Your team lead changed three times this year.'));
    expect(lost).toMatchObject({ ok: false, severity: 1 });
    expect(lost!.quote).toContain('grandma passed away');
    expect(check(emotionalCore, view(EN, 'Caroline went to a support group yesterday.'))).toBeUndefined();
  });
});
