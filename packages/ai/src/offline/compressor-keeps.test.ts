/**
 * What of a conversation the offline compressor keeps in V1 and V2, and as what: the topic it opens
 * with, the user's worry, request and loss, a companion's question as asked, the user's residue, the
 * facts of a chat and not its small talk (issue 36). The rest of the compressor: compressor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compressor, request, share, stages } from './compressor-harness.js';

describe('OfflineCompressor', () => {
  it('names the topic the conversation opens with, in V1 and V2', async () => {
    const chat = [
      'user: 知道保利剧院吗？',
      'assistant: 知道呀，是首都重要的演出场所之一，常年会上演话剧和交响音乐会。',
      'user: 它的具体地址你知道吗？',
      'assistant: 知道，是北京市东城区东直门南大街14号保利大厦1层。',
      'user: 那门票大概多少钱？',
      'assistant: 看演出，普通场次180元左右，周末的场次会贵一些。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    expect(v1.compressedContent).toContain('保利剧院');
    expect(v2.coreMemory).toContain('保利剧院');
    // The bare answer travels with the question it answers.
    expect(v1.compressedContent).toContain(
      '你问它的具体地址，我说是北京市东城区东直门南大街14号保利大厦1层。',
    );
  });

  it("keeps a clause that names no one with the she it goes on from: never as the user's own doing", async () => {
    const chat = [
      'user: 我奶奶今天走了。',
      'assistant: 我很难过听到这个消息。你想聊聊吗？',
      'user: 她九十二岁了，走得很安详。小时候都是她带我，每天早上给我做葱油饼。',
      'assistant: 葱油饼一定是很珍贵的回忆。',
      'user: 是啊，我还记得她教我包饺子，说包饺子要有耐心。',
      'assistant: 她一定很爱你。葬礼是什么时候？',
      'user: 下周一，在老家湖南衡阳。我今晚就坐火车回去。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    for (const text of [v1.compressedContent, v2.coreMemory]) {
      // "你说每天早上给你做葱油饼" said the user made them for themself; "你说走得很安详", that the user died.
      expect(text).not.toMatch(/说每天早上给你做葱油饼|说走得很安详/);
      if (text.includes('每天早上给你做葱油饼')) expect(text).toContain('都是她带你，每天早上给你做葱油饼');
    }
    expect(v1.compressedContent).toContain('每天早上给你做葱油饼');
  });

  it('keeps a 于此 / 这里 of place with the turn that names the place, or leaves it out', async () => {
    const chat = [
      'user: 你知道鲁迅博物馆吗？',
      'assistant: 知道，在阜成门内宫门口二条19号，展出鲁迅的手稿和生平资料，免费参观，周一闭馆。',
      'user: 周边还有什么景点？',
      'assistant: 有啊，白塔寺就在附近。',
      'user: 嗯，元代1279年建的白塔和300多尊佛像都保存于此，门票20元。',
      'assistant: 对，每年春节还有庙会，开放时间是9:00-16:30。',
      'user: 好的，周六我就带孩子去看看。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    // 此 is 白塔寺: a stage that keeps the clause says 白塔寺 before it (the V2 before kept
    // "你说元代1279年建的白塔和300多尊佛像都保存于此" without it, the museum's as it read).
    for (const text of [v1.compressedContent, v2.coreMemory])
      if (text.includes('保存于此')) expect(text.slice(0, text.indexOf('保存于此'))).toContain('白塔寺');
  });

  it('quotes the user asking the companion to do something: reported, its you and their me read as one person', async () => {
    const chat = [
      'user: Can you remind me what I should pack for the camping trip?',
      'assistant: Sure! Tent, sleeping bag, flashlight and warm layers. Where are you going?',
      'user: Yosemite with my college roommates, Jake and Priya. We leave Saturday morning at 6.',
      'assistant: That sounds like a great reunion!',
      "user: I'm a little worried it'll be awkward. Priya and I kind of dated senior year.",
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en');
    for (const text of [v1.compressedContent, v2.coreMemory])
      expect(text).not.toMatch(/whether you can remind you/);
    if (v1.compressedContent.includes('remind'))
      expect(v1.compressedContent).toContain('"Can you remind me what I should pack');
    // The worry is what the companion must remember of it (scoring.ts PAIN_BONUS): V1 before kept the
    // packing question and dropped it.
    for (const text of [v1.compressedContent, v2.coreMemory])
      expect(text).toContain("worried it'll be awkward");
  });

  it("keeps the user's own words over the companion saying them back", async () => {
    const chat = [
      'user: 爸爸说寒假要带我去爷爷家过年。',
      'assistant: 爷爷家在哪里呀？',
      'user: 在四川乐山的一个小镇上，爷爷养了一只小黑狗，叫豆豆。',
      'assistant: 小黑狗叫豆豆，真可爱！你喜欢去爷爷家吗？',
      'user: 喜欢，爷爷家门口有一片橘子林，去年我帮爷爷摘了两大筐橘子。',
      'assistant: 两大筐橘子，真能干！这次还想做什么？',
      'user: 我想学骑自行车，但是有点怕摔跤。',
      'assistant: 可以先让大人扶着在平地上练习。',
      'user: 嗯，我们1月20号出发，坐动车三个小时就到了。',
    ].join('\n');
    const { v1 } = await stages(chat, 'zh');
    // The V1 before: "…爷爷养了一只小黑狗。小暖说小黑狗叫豆豆。", the child's own words cut for the echo.
    expect(v1.compressedContent).not.toContain('小暖说小黑狗叫豆豆');
    expect(v1.compressedContent).toContain('爷爷养了一只小黑狗，叫豆豆');
  });

  it('quotes a sentence whose "I\'ve" was left out: "You said been to Lisbon twice" said it of nobody', async () => {
    const chat = [
      'user: Been to Lisbon twice this year for work, and honestly I am exhausted.',
      'assistant: Two trips is a lot. How are you holding up?',
      'user: Not great. My manager wants me to go again in March and I have not told my wife yet.',
      'assistant: That sounds stressful. When will you talk to her?',
      'user: Tonight after dinner. She has been asking why I look so tired.',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en');
    for (const text of [v1.compressedContent, v2.coreMemory]) expect(text).not.toMatch(/said been/i);
    expect(v1.compressedContent).toContain(
      'You said, "Been to Lisbon twice this year for work, and honestly I am exhausted."',
    );
  });

  it('reads "但是我还是很害怕" as a statement: its 还是 is "still", no choice asked', async () => {
    const chat = [
      'user: 今天我妈住院了，医生说是胆结石，明天要做手术。',
      'assistant: 啊，阿姨现在怎么样？你还好吗？',
      'user: 她疼了一晚上，现在打了止痛针好一点了。我请了三天假在医院陪她。',
      'assistant: 辛苦你了。手术是微创的吗？',
      'user: 对，腹腔镜，医生说一个小时左右。但是我还是很害怕，我爸走得早，家里就我和我妈。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    // Read as "是…还是…" (either-or), it was reported as a worry asked: "你担心还是很害怕".
    for (const text of [v1.compressedContent, v2.coreMemory])
      expect(text).not.toMatch(/担心还是很害怕|问还是/);
    expect(v1.compressedContent).toContain('还是很害怕');
  });

  it("keeps the user's news of their own people over the companion's cheer at it", async () => {
    const chat = [
      'user: Proud but a little sad today. My son Tom graduated from law school yesterday.',
      'assistant: Congratulations to Tom! Why sad?',
      "user: He's moving to Seattle next month for a job at a big law firm, 800 miles away from us.",
      "assistant: That's a big change. It makes sense to feel both.",
      'user: He was the first in our family to finish college. His grandpa would have loved to see it, he passed away in 2020.',
      "assistant: I'm sure he would have been proud of him.",
      "user: I gave Tom his grandpa's old watch as a graduation gift, he cried.",
      'assistant: What a meaningful gift. How will you stay close once he moves?',
      "user: We agreed on a phone call every Saturday morning, and I'll visit him at Christmas.",
    ].join('\n');
    // V1 kept "Mia said congratulations to Tom!" (a name: a fact) and lost what it congratulated.
    const { v1, v2 } = await stages(chat, 'en', { name: 'Mia', userName: 'Priya' });
    for (const text of [v1.compressedContent, v2.coreMemory])
      expect(text).toContain("Priya's son Tom graduated from law school");
    // Nor the cheer to fill V2's length: "Mia said congratulations to Tom!" is no memory of Priya's.
    expect(v2.coreMemory).not.toMatch(/congratulations/iu);
  });

  it('keeps a whole answer in V2 without the question it cannot keep ("Why sad?")', async () => {
    const chat = [
      'user: Proud but sad today. My daughter Ana graduated from dental school.',
      'assistant: Congratulations to Ana! Why sad?',
      "user: She's moving to Perth next month for a job at a city clinic, 2,000 miles away from us.",
      "assistant: That's a big change for both of you. It makes sense to feel proud and sad at the same time.",
      'user: She was the first in our family to finish university. Her granddad would have loved to see it, he passed away in 2018.',
      "assistant: I'm sure he would have been very proud of her, and of you for getting her there.",
      'user: Thank you. I gave her his old watch as a graduation gift, she cried.',
      'assistant: What a meaningful gift. How will you stay close once she moves?',
      "user: We agreed on a phone call every Saturday at 8 pm, and I'll visit her at Easter.",
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en', { name: 'Juno' });
    expect(v1.compressedContent).toContain('Juno asked, "Why sad?", and you said she\'s moving to Perth');
    // V2 kept "Juno said congratulations to Ana!" and lost the move that made the user sad.
    expect(v2.coreMemory).toContain("You said she's moving to Perth next month");
    expect(v2.coreMemory).not.toMatch(/Why sad/u);
  });

  it('keeps no bare answer without its question, however long the date a stage anchored to it', async () => {
    // A child's V1 (a written chat): "朵朵说下周二（11月24日）。" counted its anchor as said words and stood alone.
    const v1 = [
      '朵朵说奶奶住院了，朵朵好担心。她昨天（11月19日）在菜市场摔了一跤，腿骨折了，医生说要做手术。',
      '小满问：“你去医院看她了吗？”',
      '朵朵说爸爸带朵朵去了。朵朵要画她种的那盆茉莉花，她最喜欢那盆花了。',
      '小满问手术是哪天，朵朵说下周二（11月24日）。',
      '朵朵想那天请假去陪她，但是妈妈说朵朵要上学。',
    ].join('\n');
    const names = { name: '小满', userName: '朵朵' };
    const v2 = (await compressor.compressV2(request(v1, 'zh', { min: 60, max: 120 }, names))).fields
      .coreMemory;
    expect(v2).toContain('腿骨折了');
    expect(v2).not.toMatch(/朵朵说下周二/u);
  });

  it("keeps the user's worry with its condition, as a statement", async () => {
    const chat = [
      'user: 明天就要期末数学考试了，我好紧张。',
      'assistant: 别紧张，你已经复习了很久了。',
      'user: 如果我考不好，妈妈会不高兴的吗？',
      'assistant: 妈妈更在乎你有没有努力，你每天都练习到九点，这些她都看到了。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    expect(v1.compressedContent).toContain('你担心如果你考不好，妈妈会不高兴的。');
    expect(v2.coreMemory).toContain('如果你考不好，妈妈会不高兴');
    expect(v2.emotionalResidue.dominantEmotion).toBe('焦虑');
  });

  it("keeps the user's request about themselves in V1, quoted as asked, and V2 leaves the question out", async () => {
    const chat = [
      'user: I started learning the cello in March and I practise every evening after work at the library.',
      'assistant: That is a lovely routine, I am so happy for you.',
      'user: Thanks! Do you have any good book recommendations for me?',
      'assistant: Sure! "The Inner Game of Music" is a classic, and many cellists like "Cello Practice Secrets".',
      'user: Great, I will order both this weekend. My recital is on 14 June at the community hall.',
      'assistant: Wonderful, I would love to hear how the recital goes. You have worked hard for it.',
      'assistant: Keep practising the hard passages slowly, and enjoy it.',
      'user: Haha, thank you so much, that is really kind of you to say, I appreciate it a lot!',
      'assistant: Of course, anytime. It is always so nice to chat with you like this in the evening.',
      'user: Same here, it is really nice, and thanks again for listening to me go on and on!',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en');
    // The user's "you" (the companion) is as said, so the question is quoted, as asked: reported, "You asked
    // whether you have any good book recommendations for you" made the two one person.
    expect(v1.compressedContent).toContain('You asked, "Do you have any good book recommendations for me?"');
    expect(v2.coreMemory).not.toContain('recommendations');
    expect(v2.coreMemory).toContain('recital');
  });

  it("keeps no reported question in V2 but the user's worry (issue 36)", async () => {
    const input = [
      'You asked whether I have any good book recommendations for you.',
      'I asked whether you practised the hard passages today.',
      'You asked what happens if you forget the notes at the recital, you are so nervous about it.',
      'You said your recital is on 14 June at the community hall.',
      'You said you will order both books this weekend.',
    ].join('\n');
    const v2 = (await compressor.compressV2(request(input, 'en', { min: 40, max: 260 }))).fields;
    expect(v2.coreMemory).toContain('you are so nervous about it');
    expect(v2.coreMemory).toContain('14 June');
    expect(v2.coreMemory).not.toContain('book recommendations');
    expect(v2.coreMemory).not.toContain('I asked');
  });

  it("keeps the loss the user answered a companion's question with, and the question it answers (issue 36)", async () => {
    const chat = [
      'user: I finally visited the old harbour today and the view from the hill was amazing.',
      'assistant: That sounds lovely! Did you take any photos?',
      "user: It reminded me of the summers at my grandma's farm in Vermont.",
      'assistant: That sounds like a special memory. Do you still visit the farm?',
      'user: Not since she passed away in 2019.',
      'assistant: I am sorry.',
      'user: My team lead changed three times this year and every new one wants a different report format.',
      'assistant: That sounds exhausting. How are you coping with it?',
      'user: I started walking to work instead of taking the bus, and I signed up for a pottery class.',
      'assistant: Pottery, you are building a whole slow-living routine. I love it.',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en', { name: 'Juno' });
    for (const stage of [v1.compressedContent, v2.coreMemory]) {
      expect(stage).toContain('you still visit the farm');
      expect(stage).toContain('not since she passed away in 2019');
      // The companion's "I love it." says what it loves nowhere.
      expect(stage).not.toMatch(/Juno loves it|I love it/);
    }
  });

  it("reports a companion's question about the user's fear as asked, never as a fact (issue 36)", async () => {
    const chat = [
      'user: 今天学校组织去科技馆参观了！看到了一个能模拟地震的房间，地震有7级那么大。',
      'assistant: 模拟地震！你害怕吗？',
      'user: 有一点，但是讲解员说遇到地震要躲在桌子下面，保护好头。',
      'assistant: 你记得真清楚，这个知识很重要。',
      'user: 我以后想当宇航员，去火星看看，我要好好学习数学和物理。',
    ].join('\n');
    const { v1 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).not.toContain('小暖你害怕');
    expect(v1.compressedContent).toContain('小暖问：“你害怕吗？”');
  });

  it("keeps the user's event said before a question, and no clause without its subject (issue 36)", async () => {
    const chat = [
      'user: 嗨，最近我在看一部老电影，叫做《城南旧事》，你看过吗？',
      'assistant: 《城南旧事》是一部很有名的电影，获得了很多奖项。我没法看电影，但我知道它讲的是老北京的故事。你最喜欢哪一段呢？',
      'user: 我觉得英子和秀贞那段最让人难忘，画面很安静，音乐也很好听。你平时看电影吗？',
      'assistant: 作为一个AI伴侣，我不能像人一样看电影，但是我可以帮你找类似的片子。需要的话告诉我哦！',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    // What the user is doing ("我在看"), with the title that names it ("叫做…" leans on it).
    for (const text of [v1.compressedContent, v2.coreMemory])
      expect(text).toContain('最近你在看一部老电影，叫做《城南旧事》。');
    // "获得了…" has no subject of its own; the companion saying it is an AI is no memory.
    expect(v1.compressedContent).not.toMatch(/说获得了|作为一个AI伴侣/);
  });

  it('keeps a lead-in clause ("作为…，") only with the clause it leads into (issue 36)', async () => {
    const chat = [
      'user: 你听说过醇亲王府吗？',
      'assistant: 听说过，作为北京保存得最完整的王府之一，很值得去看看。',
      'user: 那门票多少钱？',
      'assistant: 门票40元，学生半价。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    for (const text of [v1.compressedContent, v2.coreMemory]) expect(text).not.toMatch(/王府之一。/);
  });

  it("keeps the user's body hurting and their plan about it, and no talk about asking (issue 36)", async () => {
    const chat = [
      'user: 你好。今天想跟你说说我的身体。',
      'assistant: 好啊，你说，我听着呢。',
      'user: 这阵子我总觉得身体很疲惫，没精神。晚上也睡不好，早上起来头疼。',
      'assistant: 听起来你最近压力不小。可以去医院做个检查，也要注意休息。',
      'user: 嗯，我现在正在考虑去看医生。还有一个问题，你觉得我该吃点什么补一补？',
      'assistant: 可以多吃些新鲜的蔬菜水果，也可以适当运动，如快走、慢跑或打太极。这些都能帮你恢复体力。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    for (const text of [v1.compressedContent, v2.coreMemory]) {
      expect(text).toContain('身体很疲惫，没精神。');
      expect(text).toContain('你现在正在考虑去看医生。');
    }
    // "还有一个问题" only announces the question; "如快走…" leans on the clause it gives examples of.
    expect(v1.compressedContent).not.toMatch(/还有一个问题|。如快走/);
  });

  it('keeps a reply that opens on its verb ("练了两个月") with the question it answers (issue 36)', async () => {
    const chat = [
      'user: 今天运动会我跳远得了第一名！',
      'assistant: 真厉害！你练了多久？',
      'user: 练了两个月，每天放学都去操场练，跳的时候同学们都在喊加油。',
      'assistant: 你一定很开心吧！',
      'user: 很开心，但是也有点难过，因为外婆生病住院了，没能来看。',
      'assistant: 外婆知道了一定会为你高兴的。你可以把照片拿给她看。',
      'user: 嗯，妈妈说外婆下周出院，我想把奖牌带给她看。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).toContain('小暖问你练了多久，你说练了两个月');
    expect(v2.coreMemory).toContain('你跳远得了第一名');
    expect(v2.coreMemory).toContain('因为外婆生病住院了');
  });

  it("takes the residue from the user, not the companion's reassurance", async () => {
    const chat = [
      'user: My cat Miso died this morning.',
      "assistant: Oh no, I'm so sorry. I'm happy to talk about her, it's wonderful that you had 14 great years.",
      'user: She had kidney disease for two years. My sister Dana is driving up on Saturday to help me bury her.',
      "assistant: I'm glad Dana will be with you. That's lovely.",
    ].join('\n');
    const { v2 } = await stages(chat, 'en');
    expect(v2.emotionalResidue.dominantEmotion).toBe('grief');
    expect(v2.emotionalResidue.summary).toBe('Your cat Miso died this morning.');
  });

  // Small talk around three facts: a date, a name (and a place), a plan.
  const CHAT_EN = [
    'user: Hey Sam!',
    'assistant: Hi! How are you doing today?',
    'user: Wow, thanks for asking, Sam!',
    'assistant: Of course! It is always good to hear from you.',
    'user: My sister Olivia is getting married on June 14 in Lisbon.',
    'assistant: Oh wow, that is so great to hear!',
    'user: Yeah, it really is.',
    'user: I am going to fly there on June 10 and stay with her for a week.',
    'user: We booked a small hotel near the Alfama district for 90 euros a night.',
    'assistant: That sounds really lovely, honestly.',
    'user: Thanks, Sam!',
  ].join('\n');
  const CHAT_ZH = [
    'user: 哈哈，你好呀！',
    'assistant: 你好你好，今天过得怎么样呀？',
    'user: 还行吧，嗯嗯。',
    'assistant: 那就好，那就好。',
    'user: 我表姐小雪5月20日要在杭州结婚了。',
    'assistant: 哇，真的吗？太好了！',
    'user: 是呀是呀，真的。',
    'user: 我打算5月18日坐高铁过去，住在西湖边上那家我们小时候一起去过的又安静又漂亮的老旅馆里。',
    'assistant: 嗯嗯，好的好的。',
    'user: 谢谢你呀！',
  ].join('\n');

  for (const [language, text, kept, filler] of [
    [
      'en',
      CHAT_EN,
      [
        'Your sister Olivia is getting married on June 14 in Lisbon.',
        'You are going to fly there on June 10',
        'Alfama district for 90 euros',
      ],
      ['Hey Sam', 'Wow', 'Thanks, Sam', 'Of course', 'lovely'],
    ],
    [
      'zh',
      CHAT_ZH,
      ['你表姐小雪5月20日要在杭州结婚了。', '你打算5月18日坐高铁过去'],
      ['哈哈', '嗯嗯', '那就好', '谢谢'],
    ],
  ] as const) {
    it(`keeps the date, the names and the plan of a ${language} chat and drops its small talk`, async () => {
      const { fields } = await compressor.compressV1(request(text, language, share(text)));
      for (const fact of kept) expect(fields.compressedContent).toContain(fact);
      for (const talk of filler) expect(fields.compressedContent).not.toContain(talk);
      // The key points are the facts, not the opening greetings.
      expect(fields.keyPoints.slice(0, 2).join('\n')).toContain(kept[0]);
      expect(fields.keyPoints.join('\n')).not.toContain(filler[0]);
    });
  }
});
