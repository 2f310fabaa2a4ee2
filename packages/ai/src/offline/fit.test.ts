import { type CompressionRequest, measureLength } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';
import { readStage } from './read.js';

const compressor = new OfflineCompressor();
const v2 = async (text: string, language: 'zh' | 'en', range?: { min: number; max: number }) => {
  // The range stage.ts plans for a V1 this short: at most 80% of it, its minimum lowered to 60%.
  const max = Math.floor(measureLength(text) * 0.8);
  const request: CompressionRequest = {
    memoryId: 'm',
    language,
    personality: '',
    roleCard: { userId: 'u', language },
    text,
    targetLength: { min: Math.floor(max * 0.6), max },
    ...(range && { range }),
  };
  return { max, core: (await compressor.compressV2(request)).fields.coreMemory };
};

describe('a core memory capped by a short V1', () => {
  // V1 leaves 284 characters; the greedy choice (the most information per character first) ends
  // at 227, under the 250 the range starts at, the last sentence too long for what is left.
  const V1 = [
    'Mia said Lily must be very proud!',
    "Mia asked about why sad, and you said she's moving to Denver next month (December 2026) for a job at Children's Hospital, 1,200 miles away from you.",
    'Mia said it makes sense to feel proud and sad at the same time.',
    'You said she was the first in your family to finish college. You agreed on a video call every Sunday at 7 pm.',
  ].join('\n');

  it('reaches the configured range where V1 leaves room for it', async () => {
    const greedy = await v2(V1, 'en');
    expect(measureLength(greedy.core)).toBeLessThan(250);
    const { max, core } = await v2(V1, 'en', { min: 250, max: 500 });
    expect(max).toBe(284);
    expect(measureLength(core)).toBeGreaterThanOrEqual(250);
    expect(measureLength(core)).toBeLessThanOrEqual(max);
    expect(core).toContain('Denver');
  });

  it('keeps a he or she only with the statement naming the person, further back than its neighbour', async () => {
    const text = [
      "You can't sleep again. It's 3 am and your mind won't stop. The landlord is raising the rent from $1,450 to $1,700 in January and you don't know if you can afford it. If you cancel the gym and cook more, you save maybe $120 a month. Your coworker Priya is looking for a room. You're afraid of losing your privacy. You'll ask her to coffee on Thursday.",
      "[Key points] You said the landlord is raising the rent from $1,450 to $1,700 in January and you don't know if you can afford it.; Your coworker Priya is looking for a room. You'll ask her to coffee on Thursday.; You're afraid of losing your privacy.",
      "[Emotional highlights] You're afraid of losing your privacy.",
    ].join('\n');
    // Reaching V2's range kept "You'll ask her to coffee on Thursday." and left Priya's line out: her was nobody.
    const { core } = await v2(text, 'en', { min: 250, max: 500 });
    if (core.includes('ask her')) expect(core).toContain('Priya');
  });

  it("never drops the user's worry to reach it", async () => {
    const text = [
      '你们学校足球队明天（11月19日）要打决赛了。你是守门员，穿1号球衣。半决赛你扑出了两个点球。在市体育中心，下午3点开始。你担心万一你没扑住球，大家会怪你。',
      '小暖说输赢不会只怪一个人。',
      '你说教练也说今晚（11月18日）要早点睡，明早（11月19日）再做一次热身。',
      '【情感高光】你担心万一你没扑住球，大家会怪你。',
    ].join('\n');
    const { core } = await v2(text, 'zh', { min: 100, max: 200 });
    expect(core).toContain('你担心万一你没扑住球，大家会怪你。');
  });

  it('uses all the room V1 leaves as the pipeline measures V1 (its lines with their breaks)', async () => {
    const text = [
      '你想报名。',
      '你说选举是下周一（11月23日）下午，每个人要上台演讲3分钟。',
      '你想说你会每天帮老师收作业，还要组织大家打扫教室。上次朗诵比赛你忘词了。',
      '小暖说你和小暖可以先在家对着镜子练习五遍。',
      '你今晚（11月18日）就写，一共写三张卡片。',
    ].join('\n');
    const { max, core } = await v2(text, 'zh', { min: 100, max: 200 });
    expect(max).toBe(95);
    expect(measureLength(core)).toBeGreaterThanOrEqual(94);
  });
});

describe("a stage's prose", () => {
  it('says whose words a clause kept without its line are, after another speaker is reported', () => {
    const stage = readStage('小暖问选举是什么时候，你说下周一（11月23日）下午，每个人要上台演讲3分钟。', {
      language: 'zh',
      roleCard: { name: '小暖' },
    });
    const last = stage.clauses.filter((c) => c.text.includes('演讲'));
    expect(stage.prose(last)).toBe('你说每个人要上台演讲3分钟。');
    const first = stage.clauses.filter((c) => c.text.includes('选举') || c.text.includes('演讲'));
    expect(stage.prose(first)).toBe('小暖问选举是什么时候。你说每个人要上台演讲3分钟。');
  });

  it('reads a speaker named in another script where V1 reports them (an English memory of Chinese names)', () => {
    const card = { name: '小暖', userName: '小雨' };
    const answer = readStage(
      '小雨 asked, "你去过保利艺术博物馆吗?", and 小暖 said when you come across a steep or rough terrain, you need to be careful.',
      { language: 'en', roleCard: card },
    );
    // "小雨 said 小暖 said when…" gave the companion's answer to the user.
    const kept = answer.clauses.filter((c) => c.text.includes('terrain'));
    expect(answer.prose(kept)).toBe('小暖 said when you come across a steep or rough terrain.');
    const own = readStage(
      '阿光 said 阿光 is happy with the result. 阿光 said, "This may be an opportunity for you."',
      { language: 'en', roleCard: {} },
    );
    expect(own.prose(own.clauses.filter((c) => c.text.includes('opportunity')))).toBe(
      '阿光 said, "This may be an opportunity for you."',
    );
  });

  it('reads 你 / 我 and a turn\'s role as the speaker of a line whose words say 想说: no "你想" speaks', () => {
    // "你想说开放时间点不错" wrote a frame nobody said for a later clause of the line.
    const own = readStage('你想说的是，这个竟然要门票。开放时间点不错，正好能去南锣鼓巷溜达一圈。', {
      language: 'zh',
      roleCard: { name: 'Juno' },
    });
    expect(own.prose(own.clauses.filter((c) => c.text.includes('开放时间')))).toBe('你说开放时间点不错。');
    const named = readStage('Jolene想说的是，这个竟然要门票。各种大型庆典也都在这里举办。', {
      language: 'zh',
      roleCard: {},
      speakers: ['Deborah', 'Jolene'],
    });
    expect(named.prose(named.clauses.filter((c) => c.text.includes('庆典')))).toBe(
      'Jolene说各种大型庆典也都在这里举办。',
    );
  });

  it('cuts a long clause by length never inside a turn\'s role V1 wrote for 我 ("阿……")', () => {
    const head =
      '阿光说我们一起去了北京然后又去了上海然后去了杭州西湖边上走了很久很久一直走到天黑才回酒店休息第二天一早又去了灵隐寺烧香拜佛然后我们一起去了北京然后又去了上海然后';
    const line = `${[...head].slice(0, 79).join('')}阿光又去了灵隐寺烧香拜佛然后去了西湖边上走了很久很久。`;
    const stage = readStage(`小雨说今天天气很好。\n${line}`, {
      language: 'zh',
      roleCard: {},
      speakers: ['小雨', '阿光'],
    });
    expect(stage.clauses.map((c) => c.text).at(-1)).toBe(
      '阿光又去了灵隐寺烧香拜佛然后去了西湖边上走了很久很久。',
    );
  });

  it('writes nothing for a mark left alone after a long quote (no "Deborah说" before the next line)', () => {
    const stage = readStage(
      "Deborah说：“11月1日-次年3月31日7:00-17:00.园中园开放时间4月1日-10月31日8:30-17:00(最晚离园时间20:00);11月1日-次年3月31日9:00-16:00(最晚离园时间19:00)，电话你要是知道给我一下吧”。\nJolene说That's a tough one!",
      { language: 'zh', roleCard: {}, speakers: ['Deborah', 'Jolene'] },
    );
    expect(stage.prose(stage.clauses.slice(1))).toBe("Jolene说That's a tough one!");
  });

  it('gives the words after an answer joined to a quoted question to the one who answers, not the asker', () => {
    const stage = readStage(
      '小雨 asked, "他旁边的中国国家博物馆好玩吗?", and 阿光 said 也是我国保存非常完整的王府建筑群， 拥有各式建筑群落30多处。',
      { language: 'en', roleCard: {}, speakers: ['小雨', '阿光'] },
    );
    const rest = stage.clauses.filter((c) => c.text.includes('30多处'));
    expect(stage.prose(rest)).toBe('阿光 said 拥有各式建筑群落30多处。');
  });
});
