import { describe, expect, it } from 'vitest';
import { compressor, request, stages } from './compressor-harness.js';
import { leansBack } from './statements.js';

/**
 * A feeling with why it was felt (issue 36 deliver 3: the conversation's emotional core survives).
 * Each chat here was written for the test; none is from an eval set.
 */
describe('a feeling kept with its cause', () => {
  const chat = [
    'user: 我们班今天拔河比赛拿了第一名！',
    'assistant: 哇，恭喜！你们练了多久？',
    'user: 练了两个星期，每天放学都在操场练，手都磨红了。',
    'assistant: 你一定很开心吧！',
    'user: 很开心，但是也有点难过，因为好朋友小雨转学了，没能一起比赛。',
    'assistant: 小雨知道了也会为你们高兴的。',
    'user: 嗯，她说下个月回来看我，我想把奖牌给她看。',
    'assistant: 这真是个好主意。',
  ].join('\n');

  it('keeps the cause after the feeling in V1 ("因为好朋友小雨转学了" was a clause of its own, left out)', async () => {
    const { v1 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).toMatch(/有点难过，因为好朋友小雨转学了/);
  });

  it("puts the user's sadness in V2, matched to V1's highlight whatever its frame (你说也有点难过)", async () => {
    const { v1, v2 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.emotionalHighlights.join('')).toMatch(/你说.*难过/);
    expect(v2.coreMemory).toMatch(/有点难过，因为好朋友小雨转学了/);
  });

  it('reads a short feeling as said, an elliptical reply as leaning on its question', () => {
    expect(leansBack('很开心，')).toBe(false);
    expect(leansBack('好难过。')).toBe(false);
    expect(leansBack('有一点。')).toBe(true);
    expect(leansBack('是的。')).toBe(true);
  });
});

describe('a feeling after its cause, in a memory stored as one string', () => {
  const told =
    '今天体育课我跑了八百米，第一次跑进了四分钟，老师表扬了我。可是下课的时候小明抢了我的水壶，我很生气，就跟他吵架了。' +
    '后来老师让我们互相道歉，我还是有点委屈。放学的时候妈妈来接我，给我买了一根冰淇淋。明天还要交数学作业。';

  it('keeps "我很生气" with what made it so, and "给我买了…" with who bought it, or leaves them out', async () => {
    for (const [min, max] of [
      [40, 60],
      [60, 90],
    ] as const) {
      const ask = { ...request(told, 'zh', { min, max }, { name: '小暖' }), unattributed: true };
      const text = (await compressor.compressV1(ask)).fields.compressedContent;
      // Alone they were "我很生气。我还是有点委屈。" (feelings of nothing) and "给我买了一根冰淇淋。" (bought by nobody).
      expect(text).not.toMatch(/(?:^|[。\n])(?:我很生气|我还是有点委屈|给我买了)/);
      expect(text).toMatch(/老师表扬了我/);
    }
  });
});

describe('a fear said without its 我', () => {
  it('keeps "怕上台忘谱" as the fear it is, with the clause before it, in V1 and V2', async () => {
    const chat = [
      'user: 下个月我要去北京参加钢琴比赛，这是我第一次去外地比赛。',
      'assistant: 太棒了！你准备了什么曲子？',
      'user: 肖邦的夜曲，我已经练了三个月，老师说我的左手还要再稳一点。',
      'assistant: 可以每天先用慢速练左手十五分钟，再合起来弹，比赛前一周每天完整弹三遍。',
      'user: 好的，我还有点紧张，怕上台忘谱。',
      'assistant: 紧张很正常，多在家人面前演奏几次就好了。',
      'user: 爸爸说比赛那天他请假陪我去，我们坐早上七点的高铁。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).toMatch(/你还有点紧张，怕上台忘谱/);
    expect(v1.emotionalHighlights.join('')).toMatch(/怕上台忘谱/);
    expect(v2.coreMemory).toMatch(/你还有点紧张，怕上台忘谱/);
  });
});

describe("the companion's words in V2, second to the user's (issue 36 deliver 3)", () => {
  it("shortens the companion's facts before the user's own", async () => {
    const chat = [
      'user: 周末我和爸爸去爬了泰山，早上五点就起床了。',
      'assistant: 哇，看日出了吗？',
      'user: 看到了，太阳出来的时候特别美，爸爸给我拍了好多照片。',
      'assistant: 泰山海拔1545米，从红门上去有6600多级台阶，一般要走4到5个小时。',
      'user: 我们走了五个小时，下山的时候我的腿都软了。',
      'assistant: 下次可以带上登山杖，爬完记得用热水泡脚，第二天会舒服很多。',
      'user: 爸爸说明年暑假带我去爬黄山。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).toMatch(/从红门上去有6600多级台阶/);
    expect(v2.coreMemory).not.toMatch(/从红门上去有6600多级台阶/);
    expect(v2.coreMemory).toMatch(/你说我们走了五个小时/);
  });
});

describe('what the user answered about their trouble', () => {
  const chat = [
    'user: 你好，我今天心情不太好。',
    'assistant: 怎么了？愿意说说发生了什么吗？',
    'user: 其实最近家里出了一些事，让我有些焦虑和疲惫，晚上也睡不好。',
    'assistant: 听起来你承受了很多。你可以试着把担心写下来，也可以和信任的人聊聊。',
    'user: 好的，我试试。我今天还去图书馆借了一本关于旅行的书，想周末看完。',
    'assistant: 读书也是放松的好方法，希望你周末过得愉快。',
  ].join('\n');

  it('keeps what made them anxious with it in V1 ("让我有些焦虑" leans on the clause before), and names no "发生了什么" topic', async () => {
    const { v1 } = await stages(chat, 'zh', { userName: '林夕' });
    expect(v1.compressedContent).toMatch(/其实最近家里出了一些事，让林夕有些焦虑和疲惫/);
    expect(v1.compressedContent).not.toMatch(/聊到了/);
  });

  it('keeps the answer in V2 without the question it answered (V2 reports none)', async () => {
    const { v2 } = await stages(chat, 'zh', { userName: '林夕' });
    // Said by 林夕, after the question ("林夕说其实…") or in the line of the feeling it answers for.
    expect(v2.coreMemory).toMatch(/林夕(?:说|今天心情不太好。)其实最近家里出了一些事，让林夕有些焦虑和疲惫/);
    expect(v2.coreMemory).not.toMatch(/问/);
  });
});

describe("the user's misfortune, kept first in V2", () => {
  it('keeps "my apartment got flooded", long as it is, and no aside whose "it" is nobody\'s', async () => {
    const chat = [
      'user: Hey Juno! Lots has happened since we last talked.',
      'assistant: Oh? Tell me everything!',
      "user: My apartment got flooded last Tuesday, but thankfully I managed to save my guitar and my grandmother's photo albums.",
      "assistant: Oh no, that's awful! Do you have somewhere to stay?",
      "user: I'm staying with my cousin Leo for now. Waiting on the landlord to fix the floors - hopefully it won't take more than two weeks.",
      'assistant: I hope it gets sorted quickly.',
      "user: Me too. On the bright side, I got picked for the city jazz festival in August! I'll play three songs with my band.",
      "assistant: That's amazing, congratulations!",
      'user: We rehearse every Thursday at the community center. I took a photo at rehearsal last night. The lights were beautiful.',
      "assistant: I'd love to see it sometime.",
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en', { name: 'Juno', userName: 'Sam' });
    expect(v1.compressedContent).not.toMatch(/^Hopefully it won't take/m);
    expect(v2.coreMemory).toMatch(/^Sam's apartment got flooded last Tuesday/);
    expect(v2.coreMemory).not.toMatch(/Hopefully it won't take/);
  });
});

describe('a disappointment said without a feeling word', () => {
  it('keeps "但是都没有得到面试的机会" with the search it ends, in V1 and V2 (it weighed as filler)', async () => {
    const chat = [
      'user: 最近我一直在看书，想多学一点东西，不过我也说不清自己喜欢什么。',
      'assistant: 慢慢来，你可以多尝试不同的方向，找到自己感兴趣和适合的领域。同时也可以多去了解一些行业和领域。',
      'user: 嗯，最近我在找几份工作，但是都没有得到面试的机会。',
      'assistant: 没关系，成功需要付出时间和努力。你可以尝试扩大自己的交际圈子，多去参加一些社交活动和职业培训。',
      'user: 好的，我会尝试去推广自己，扩大人脉的。',
      'assistant: 不用客气，我会一直陪伴在你身边的。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh', { userName: '林夕' });
    expect(v1.compressedContent).toContain('最近林夕在找几份工作，但是都没有得到面试的机会。');
    expect(v2.coreMemory).toContain('最近林夕在找几份工作，但是都没有得到面试的机会。');
  });
});
