import type { RoleCard, Turn } from '@memfade/core';
import { memoryDocument } from '@memfade/db';

/**
 * Synthetic companion-app data for the demo, written for this project: users with role cards
 * and Chinese or English conversations aged 0..10 days. Deterministic for a given seed.
 */

/**
 * Each demo user talks with a companion persona: the role card is the persona (its name,
 * personality, interests, style), so the stages say who said what: the persona by name, the user
 * as 你 / "you" (the default mapping reads no user name; a product's can, roleCard.userName).
 */
const ZH_USERS = [
  {
    name: '小暖',
    personality: '温柔细腻，喜欢安静',
    hobbies: '画画，喝茶，养狗',
    speakingStyle: '轻声细语',
  },
  { name: '阿澈', personality: '开朗热情，爱冒险', hobbies: '徒步，摄影，做饭', speakingStyle: '直爽幽默' },
  {
    name: '星星',
    personality: '理性认真，有点内向',
    hobbies: '读书，下棋，跑步',
    speakingStyle: '简洁有条理',
  },
];
const EN_USERS = [
  {
    name: 'Juno',
    personality: 'warm, curious, a little anxious',
    hobbies: 'baking, gardening, podcasts',
    speakingStyle: 'chatty and kind',
  },
  {
    name: 'Theo',
    personality: 'calm, practical, dry humour',
    hobbies: 'cycling, chess, jazz',
    speakingStyle: 'short and precise',
  },
  {
    name: 'Iris',
    personality: 'energetic, caring, ambitious',
    hobbies: 'running, painting, travel',
    speakingStyle: 'enthusiastic',
  },
];

// Conversations long enough to show three stages: a V1 of a few hundred characters, and a V2
// (100-200 Chinese characters, 250-500 English) visibly shorter than it.
const ZH_TOPICS = [
  [
    '今天我去{place}散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
    '听起来很治愈！那只小狗是什么颜色的？',
    '是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
    '好可爱的名字，你是不是也想养一只？',
    '有点想，不过我现在住的地方太小了，等明年三月搬家以后再说吧。',
    '嗯，搬家以后空间大了就方便多了。你打算搬到哪里？',
    '打算搬到{person}家附近的新小区，两室一厅，楼下就有一个小公园，遛狗很方便。',
    '那太合适了。养狗要准备的东西不少，到时候我帮你列个清单。',
    '好呀。我还担心上班的时候它一个人在家会孤单，如果它每天叫个不停，邻居会不会投诉？',
    '刚开始可以请人白天来遛一次，也可以先从比较安静的品种开始了解，比如柯基或者比熊。',
    '你说得对。我周六想先去宠物店看看，顺便问问疫苗和绝育一共要花多少钱。',
    '好主意，记得把问到的价格记下来，我们一起算算每个月的开销。',
    '嗯，我算过了，狗粮加上零食，每个月大概要三百块，我的预算是五百块以内。',
    '预算留得很充足，你准备得真认真。豆豆要是知道有个新朋友，一定也会很开心的。',
    '对了，我小时候家里养过一只叫花花的土狗，陪了我十二年，它走的时候我哭了好几天。',
    '原来你和狗狗有这么深的缘分。花花一定给你留下了很多温暖的回忆。',
    '是啊，所以这次我想认真一点，先去{place}附近的救助站做两个月志愿者，看看自己能不能照顾好。',
    '这个想法很成熟。救助站一般周末需要人帮忙遛狗和打扫，你可以先报名试试。',
    '嗯，我已经在网上填了报名表，下周日上午九点第一次去。',
    '太好了，第一次去记得穿旧一点的衣服，回来告诉我遇到了哪些狗狗。',
  ],
  [
    '最近工作压力好大，经理又给我加了一个新项目，下周五就要交。',
    '辛苦了，这个项目具体要做什么呢？',
    '要整理过去三年的销售数据，一共有一万两千多条记录，还要做一份给老板看的报告。',
    '时间确实很紧，要不要先把任务拆成几个小步骤？',
    '好主意，我打算周一先把数据整理完，周三写报告，周四再检查一遍。',
    '这个安排很合理。数据里有没有需要别人帮忙核对的部分？',
    '华东区的数据最乱，我想请同事{person}帮我核对，TA以前负责过那个区域。',
    '找熟悉的人核对能省很多时间。你自己现在感觉怎么样？',
    '有点焦虑，晚上总是睡不好，昨天凌晨两点才睡着。如果周五交不出来，老板会不会觉得我能力不行？',
    '你已经把计划想得很清楚了，按步骤做就好。老板更看重的是结果和你处理问题的方式。',
    '嗯，我打算每天晚上九点以后就不看邮件了，周末再去{place}跑个步放松一下。',
    '很好的安排，记得中间也要好好休息，别熬夜，周五交完我们一起庆祝。',
    '其实我一直想换个岗位，去做数据分析，现在这份工作太多重复的整理了。',
    '这次的项目正好是数据分析的练习，你可以把做报告的过程当成作品集的一部分。',
    '对哦，我还报了一个线上的Python课程，一共十二周，每周三晚上八点上课。',
    '你真的在认真为转岗做准备。课程和工作同时进行会不会太累？',
    '有一点，但是我想在今年年底之前拿到证书，明年春天就去申请公司内部的数据分析岗位。',
    '目标很清楚，一步一步来。项目交完以后我们再一起看看课程的进度表。',
    '好，谢谢你一直听我说这些，说出来心里轻松多了。',
  ],
  [
    '周末我和{person}去{place}吃了一家新开的火锅店，味道超级好。',
    '哇，你们点了什么？',
    '点了毛肚、虾滑和牛肉，汤底是番茄和麻辣的鸳鸯锅，两个人一共花了二百八十块。',
    '听着就很香！你比较喜欢哪个汤底？',
    '我更喜欢番茄的，{person}一直在吃麻辣的，辣得满头大汗，哈哈。',
    '真有意思。那家店在哪里？下次可以推荐给别人。',
    '在人民路和解放路的路口，店名叫老码头，晚上六点以后要排队，我们等了四十分钟。',
    '等四十分钟也值得，看来真的很好吃。',
    '对呀，而且我们约好了下个月十五号{person}生日那天再去一次，我想偷偷订一个蛋糕。',
    '好贴心的惊喜！蛋糕想订什么口味的？',
    '{person}最喜欢芒果，我打算订一个六寸的芒果慕斯，写上生日快乐。',
    '{person}一定会很感动的。到时候记得拍照给我看哦。',
    '一定！说起来，我和{person}是大学室友，认识快十年了，毕业以后每年都会一起过生日。',
    '十年的友谊真难得。你们今年有没有别的计划？',
    '我们打算国庆节一起去成都玩五天，{person}一直想去看大熊猫，我想去吃正宗的火锅。',
    '成都的火锅和这家比起来，说不定又是另一种味道。',
    '哈哈，我已经开始期待了。机票我们打算下个月发工资以后再订，预算每人三千块。',
    '预算合理。出发前我可以帮你们整理一份成都的美食清单。',
  ],
];
const EN_TOPICS = [
  [
    'I finally visited {place} today and the view from the hill was amazing.',
    'That sounds lovely! What was the best part?',
    'Watching the sunset with {person}. We brought sandwiches and stayed until it got dark, around 8:30 pm.',
    'What a nice way to spend the evening. Did you take any photos?',
    'A few, but honestly I just wanted to enjoy the moment for once instead of staring at my phone.',
    'That is a good habit. Moments like that stay with you longer than photos do.',
    "It reminded me of the summers at my grandma's farm in Vermont, when we watched the sky every night.",
    'That sounds like a special memory. Do you still visit the farm?',
    'Not since she passed away in 2019. My cousin sold it two years ago and I never got to say goodbye to the place.',
    'I am sorry. It makes sense that a sunset brought all of that back.',
    'It did. I want to plant a small vegetable garden on my balcony this spring, the way she taught me, with tomatoes and basil.',
    'That is a beautiful way to keep her close. When do you want to start?',
    'The garden centre on Elm Street has a sale on the 14th, so I will buy the seeds and two big pots then.',
    'Perfect. Send me a picture of the first tomato!',
    'I will. Grandma used to say a garden teaches you patience, and honestly I need some of that right now.',
    'Has something been testing your patience lately?',
    'Work, mostly. My team lead changed three times this year and every new one wants a different report format.',
    'That sounds exhausting. How are you coping with it?',
    'I started walking to work instead of taking the bus. It takes 35 minutes, but it clears my head before the first meeting.',
    'That is a healthy habit, and a good way to arrive calm.',
    'I also signed up for a pottery class on Wednesday evenings with {person}. The first session is next week.',
    'Pottery and gardening, you are building a whole slow-living routine. I love it.',
  ],
  [
    'I am nervous about my job interview with {person} on Thursday.',
    'That is understandable. What is the role?',
    'It is a project manager position at a small design studio near {place}. The salary would be 15% more than what I make now.',
    'You have led projects before, so you have real examples to talk about.',
    'True, I could mention the website launch I coordinated last spring. We shipped it two weeks early and under budget.',
    'That is a strong story. Which part of the interview worries you most?',
    'What if they ask why I want to leave my current job? I do not want to sound negative about my team.',
    'You can talk about what you are looking for: bigger projects and more ownership, rather than what you are leaving.',
    'That helps. The interview is at 10 am and it has two parts, a conversation and a short case study.',
    'Want to practise the case study together tomorrow evening?',
    'Yes please. I also need to pick an outfit and print three copies of my portfolio.',
    'Lay everything out the night before, so Thursday morning is calm. You are more prepared than you think.',
    'Thanks. If I get the job, I want to celebrate with a weekend trip to the coast, maybe Cornwall.',
    'That sounds like a great reward. Have you been to Cornwall before?',
    'Once, when I was twelve, with my parents. We stayed in a tiny cottage in St Ives and it rained for five days straight.',
    'Hopefully the weather is kinder this time!',
    'Ha, I will check the forecast first. And if I do not get it, I will still go, just for fewer days.',
    'Either way you deserve the break after all this preparation.',
    'I will message you on Thursday afternoon as soon as I am out of the building.',
    'I will be waiting. Good luck, you have got this!',
  ],
  [
    'My best friend {person} got engaged last night and I am so happy for her!',
    'Congratulations to her! How did it happen?',
    'Her partner proposed at {place}, the same place where they had their first date six years ago.',
    'That is so romantic. How did she react?',
    'She cried and laughed at the same time, and then called me at midnight to tell me everything.',
    'I can feel how excited you are. Are you going to help plan the wedding?',
    'She asked me to be her maid of honour! The wedding is next September, probably in a barn outside the city.',
    'What an honour. What does a maid of honour have to do?',
    'Plan the party, help with the dress, and give a speech. The speech scares me a little, I always freeze in front of crowds.',
    'You have almost a year to write it and practise. Start by writing down your favourite stories about her.',
    'I already have one: when we were ten she cut my hair before our school photo and her mum was furious.',
    'That is a perfect opening. People love a story like that.',
    'It is funny, I am so happy for her but also a bit sad. We used to do everything together and now she is starting a new life.',
    'Those two feelings often come together. Your friendship is changing, not ending.',
    'You are right. She already said we will keep our Friday movie nights, even after the wedding.',
    'That sounds like a promise worth keeping. What was the last movie you watched together?',
    'An old musical, The Sound of Music. We know every song by heart and sang the whole time.',
    'Maybe that could go into your speech too.',
    'Oh, that is a great idea. I will start a draft this weekend and read it to you when it is ready.',
    'I would love that. Take your time with it.',
  ],
];
const ZH_FILL = {
  place: ['西湖边', '人民公园', '老城区', '江边步道'],
  person: ['小李', '阿杰', '小美', '晓晴'],
};
const EN_FILL = {
  place: ['Brighton', 'the old harbour', 'Central Park', 'the botanical garden'],
  person: ['Sam', 'Olivia', 'Jordan', 'Priya'],
};

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface DemoSet {
  memories: Record<string, unknown>[];
  roleCards: RoleCard[];
}

export function generateDemoData(options: {
  now: Date;
  users?: number;
  days?: number;
  seed?: number;
}): DemoSet {
  const random = rng(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const users = options.users ?? 6;
  const days = options.days ?? 10;
  const memories: Record<string, unknown>[] = [];
  const roleCards: RoleCard[] = [];
  for (let u = 0; u < users; u++) {
    const zh = u % 2 === 0;
    const person = (zh ? ZH_USERS : EN_USERS)[Math.floor(u / 2) % 3]!;
    const userId = `demo-${zh ? 'zh' : 'en'}-${u + 1}`;
    roleCards.push({ userId, ...person, language: zh ? 'zh' : 'en' });
    for (let age = 0; age <= days; age++) {
      const fill = zh ? ZH_FILL : EN_FILL;
      const topic = pick(zh ? ZH_TOPICS : EN_TOPICS);
      // One place and one person per conversation: its turns talk about the same ones.
      const [place, friend] = [pick(fill.place), pick(fill.person)];
      const lines = topic.map((line) => line.replaceAll('{place}', place).replaceAll('{person}', friend));
      // Every fourth memory is a short greeting, which is not worth a model call.
      const used = age % 4 === 3 ? lines.slice(0, 2).map((l) => l.slice(0, 18)) : lines;
      const turns: Turn[] = used.map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', text }));
      const createdAt = new Date(options.now.getTime() - age * 86_400_000 - Math.floor(random() * 3_600_000));
      memories.push(
        memoryDocument({ memoryId: `${userId}-d${age}`, userId, partnerId: 'companion', turns, createdAt }),
      );
    }
  }
  return { memories, roleCards };
}
