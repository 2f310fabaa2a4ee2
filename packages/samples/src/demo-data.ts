import type { RoleCard, Turn } from '@memfade/core';
import { memoryDocument } from '@memfade/db';

/**
 * Synthetic companion-app data for the demo, written for this project: users with role cards
 * and Chinese or English conversations aged 0..10 days. Deterministic for a given seed.
 */

const ZH_USERS = [
  {
    name: '林小雨',
    personality: '温柔细腻，喜欢安静',
    hobbies: '画画，喝茶，养猫',
    speakingStyle: '轻声细语',
  },
  { name: '王大海', personality: '开朗热情，爱冒险', hobbies: '徒步，摄影，做饭', speakingStyle: '直爽幽默' },
  {
    name: '陈思远',
    personality: '理性认真，有点内向',
    hobbies: '读书，下棋，跑步',
    speakingStyle: '简洁有条理',
  },
];
const EN_USERS = [
  {
    name: 'Maya',
    personality: 'warm, curious, a little anxious',
    hobbies: 'baking, gardening, podcasts',
    speakingStyle: 'chatty and kind',
  },
  {
    name: 'Leo',
    personality: 'calm, practical, dry humour',
    hobbies: 'cycling, chess, jazz',
    speakingStyle: 'short and precise',
  },
  {
    name: 'Ava',
    personality: 'energetic, caring, ambitious',
    hobbies: 'running, painting, travel',
    speakingStyle: 'enthusiastic',
  },
];

const ZH_TOPICS = [
  [
    '今天我去{place}散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
    '听起来很治愈！那只小狗是什么颜色的？',
    '是一只白色的小柯基，主人说它叫豆豆，才五个月大。',
    '好可爱的名字，你是不是也想养一只？',
    '有点想，不过我现在住的地方太小了，等明年搬家再说吧。',
    '嗯，搬家以后空间大了就方便多了，到时候我帮你查查养狗要准备什么。',
  ],
  [
    '最近工作压力好大，{person}又给我加了一个新项目，下周五就要交。',
    '辛苦了，这个项目具体要做什么呢？',
    '要整理过去三年的销售数据，还要做一份给老板看的报告。',
    '时间确实很紧，要不要先把任务拆成几个小步骤？',
    '好主意，我打算周一先把数据整理完，周三写报告，周四再检查一遍。',
    '这个安排很合理，记得中间也要好好休息，别熬夜。',
  ],
  [
    '周末我和{person}去{place}吃了一家新开的火锅店，味道超级好。',
    '哇，你们点了什么？',
    '点了毛肚、虾滑和牛肉，汤底是番茄和麻辣的鸳鸯锅。',
    '听着就很香！你比较喜欢哪个汤底？',
    '我更喜欢番茄的，{person}一直在吃麻辣的，辣得满头大汗，哈哈。',
    '真有意思，下次可以再去试试别的菜。',
  ],
];
const EN_TOPICS = [
  [
    'I finally visited {place} today and the view from the hill was amazing.',
    'That sounds lovely! What was the best part?',
    'Watching the sunset with {person}. We brought sandwiches and stayed until it got dark.',
    'What a nice way to spend the evening. Did you take any photos?',
    'A few, but honestly I just wanted to enjoy the moment for once instead of staring at my phone.',
    'That is a good habit. Moments like that stay with you longer than photos do.',
  ],
  [
    'I am nervous about my job interview with {person} on Thursday.',
    'That is understandable. What is the role?',
    'It is a project manager position at a small design studio near {place}.',
    'You have led projects before, so you have real examples to talk about.',
    'True, I could mention the website launch I coordinated last spring. It went really well.',
    'Perfect example. Want to practise a few questions tomorrow evening?',
  ],
  [
    'My sister {person} got engaged last night and I am so happy for her!',
    'Congratulations to her! How did it happen?',
    'Her partner proposed at {place}, the same place where they had their first date.',
    'That is so romantic. How did she react?',
    'She cried and laughed at the same time, and then called me at midnight to tell me everything.',
    'I can feel how excited you are. Are you going to help plan the wedding?',
  ],
];
const ZH_FILL = {
  place: ['西湖边', '人民公园', '老城区', '江边步道'],
  person: ['小李', '妈妈', '同事阿杰', '好朋友小美'],
};
const EN_FILL = {
  place: ['Brighton', 'the old harbour', 'Central Park', 'the botanical garden'],
  person: ['Sam', 'my manager', 'Olivia', 'Grandpa'],
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
      const lines = pick(zh ? ZH_TOPICS : EN_TOPICS).map((line) =>
        line.replaceAll('{place}', pick(fill.place)).replaceAll('{person}', pick(fill.person)),
      );
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
