import type { PatternRule } from '../types.js';

// The Chinese pack's talk about the talk: saying what day it is, announcing a question, "下次再聊". Each
// says nothing of the user (offline scoring.ts weighs none of it as a fact), as the English pack's small-talk.ts.

export const smallTalk = {
  aboutTheTalk: {
    why: 'talk about the conversation itself ("我们明天再聊", "今天的聊天很愉快"): its date places no event',
    pattern:
      /聊(?:天|聊|些|点|一下|一聊)|再聊|再见|交互|下次聊|找你聊|你(?:最近|今天)?(?:还好|好)吗|你(?:最近|今天)过得怎么样/u,
    matches: ['我们明天（4月30日）再聊。', '今天的聊天非常愉快', '你今天还好吗？'],
    rejects: ['昨天我又跑步了'],
  } satisfies PatternRule,
  preface: {
    why: 'a line announcing a question ("今天我有一个小问题想要请教你") or taking advice in ("我会试试看"): alone it tells nothing',
    pattern:
      /^[^，。！？]{0,10}?(?:会|要)(?:好好|认真)?(?:去)?(?:试试看?|试一试|尝试(?:一下)?|注意(?:这些细节)?|实践|照做|(?:找来)?看(?:一?看|一下)(?:这些\p{Script=Han}{0,4})?)[的了吧呀啊]*[。！!]?$|(?:考虑|参考|采纳|听取)(?:一下)?你的建议[。！!”"]*$|尝试着?去做一些你说的事情[。！!”"]*$|^[^，。！？]{0,6}?(?:已经)?(?:记下来|明白)了[。！!]?$|^[^，。！？]{0,6}?我们(?:明天|下次|改天|以后)(?:（[^）]*）)?(?:还|也)?(?:可以)?(?:一起)?(?:再|继续|再继续)?聊(?:天)?[吧啊呀呢]?[。！!]?$|^[^，。！？]{0,8}?我们(?:还|也)?(?:可以)?(?:继续)?保持联系[吧啊呀]?[。！!]?$|问题想(?:要)?(?:请教|问)(?:你|您)|(?:有|想问)(?:你|您)?(?:一个|几个)(?:小)?问题[。！!]?$|想(?:问问|问|听听)(?:你|您)的(?:看法|意见|想法)[。！!]?$|(?:第一次(?:跟|和|与)(?:你|您)|(?:你|您)(?:跟|和|与)我第一次)聊天[，。！!”"]*$/u,
    matches: [
      '今天我有一个小问题想要请教你',
      '我想问你一个问题',
      '我还想问问你的看法',
      '王峰会试试看。',
      // _check_: kept in a V2 over the user's own plans.
      '王峰说以后王峰也会注意这些细节。',
      '王峰会好好实践。',
      '孙悦说：“我今天（4月27日）第一次跟你聊天”。',
      // _check_: a V2 opened so ("我说今天是你和我第一次聊天，所以我不知道你的一天过得怎样").
      '我说今天（4月27日）是你和我第一次聊天，',
      '我会注意的。',
      '我已经记下来了。',
      '张志强明白了。',
      '王峰说我们明天（4月28日）再聊。',
      // _check_ (王峰/2023-05-04 of seed 3018's reading): a V2 closed on them.
      '我们明天（5月5日）再继续聊天吧。',
      // _check_ (王峰/2023-05-03 of seed 3020's reading): the companion's close, in a V2.
      '我们以后还可以一起聊天呢。',
      '王峰说我们还可以继续保持联系。',
      '李雪会去看看这些电影。',
      '张曼婷会去找来看看的。',
      '李雪说：“我会认真考虑你的建议”。',
    ],
    rejects: [
      // The feeling is the user's (_check_: "陆琳感觉有些紧张" was left out as talk about the talk).
      '今天第一次和你聊天，感觉有些紧张。',
      '这个问题会影响到我的工作表现',
      '我明天要去练习游泳。',
      '我周末会去公园实践一下拍照。',
      '我会尝试学习新技能。',
      '周末我会去看看外婆。',
    ],
  } satisfies PatternRule,
  todayIs: {
    why: 'a clause that only says what day or weather it is ("今天是星期二，", "今天天气真好呀。"): small talk',
    pattern:
      /^(?:[^，。！？]{1,6}说)?今天(?:（[^）]*）)?(?:是(?:星期|周|礼拜)[一二三四五六日天末]|的?天气(?:也|还)?(?:真是|真|很|非常|特别|挺)?(?:好|不错|晴朗)[啊呀呢啦]*)[，。！!,.]?$/u,
    matches: [
      '今天是星期二，',
      '今天（5月4日）是周末。',
      '张志强说今天（4月28日）天气真好呀。',
      '今天（4月27日）天气也不错，',
      '曹志强说今天（5月1日）天气真是好啊。',
    ],
    rejects: ['今天是星期天，打算出去散步。', '今天是我的生日。'],
  } satisfies PatternRule,
  companionSelf: {
    why:
      'an AI companion speaking of itself, not of the user ("我也很喜欢博物馆。", "我也会努力坚持的。"): its likes and ' +
      'plans are no memory of the user\'s ("我在空间里看到了你养的猫咪的照片" is); a companion who is a person keeps them',
    pattern: /^(?:我说(?:其实)?(?=我))?我(?![们国说问])(?!.*[你您])/u,
    matches: [
      '我也很喜欢博物馆。',
      '我也会努力坚持的。',
      '我很喜欢健身。',
      // _check_ Its own words as a stage reports them (MemoryBank zh 曹志强's birthday, seed 3023's reading).
      '我说其实我的生日只是程序的设定时间，但我也很喜欢庆祝生日。',
    ],
    rejects: [
      '我说天安门广场就在附近。',
      '我问你去的是哪个公园。',
      '我们聊到了保利剧院。',
      '我在空间里看到了你养的猫咪的照片。',
    ],
  } satisfies PatternRule,
  reaction: {
    why: 'a few words with no subject reacting to what the other showed or told ("看起来很好吃！", "听起来很棒"): about the other',
    pattern: /^(?:这|那)?(?:看起来|听起来|看着|听着|一定很)/u,
    matches: ['看起来很好吃！', '听起来很棒', '那一定很开心吧'],
    rejects: ['我看起来很累', '今天看了一部电影'],
  } satisfies PatternRule,
};
