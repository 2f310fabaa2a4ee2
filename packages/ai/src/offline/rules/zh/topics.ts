import type { PatternRule } from '../types.js';

// The Chinese pack's topics: what an opening asks about (the conversation's topic, offline topic.ts),
// and what a topic name is not.

export const topics = {
  opening: [
    {
      why: 'an opening question about a thing names the topic ("知道保利剧院吗？"); not knowing ("不知道该…") is none',
      pattern:
        /(?<![不没])(?:知道|听说过|听过|了解|认识|看过|去过|玩过|读过|吃过|喜欢|聊聊|说说|介绍一下)(?:一下)?([^，。！？?,!\s]{2,20}?)(?:吗|(?<!什)么|呢|不|没|的事|？|\?|$)/u,
      matches: ['知道保利剧院吗？', '你去过恭王府吗'],
      rejects: ['我不知道该怎么做', '今天天气很好'],
    },
    {
      why: '"你对北京自然博物馆有了解吗？", "关于大观园你知道多少？" name the topic',
      pattern:
        /(?:对|关于)([^，。！？?,!\s]{2,20}?)(?:你)?(?:有|很|比较|越来越|更|特别|非常|挺)?感?(?:了解|兴趣|研究|熟悉|知道)/u,
      matches: ['你对北京自然博物馆有了解吗？', '关于大观园你知道多少？', '我对赛车比赛越来越感兴趣了'],
      rejects: ['我对你很好'],
    },
    {
      why: 'the thing first, then the question: "角楼你去过吗？", "《我要复仇》你看过吗"; a time first is none',
      pattern:
        /^(?!今天|昨天|明天|最近|现在|刚才|周末|晚上|早上)(《[^》]{1,20}》|[^，。！？?,!\s你我他她《]{2,20}?)(?:你|您)?(?:有)?(?:知道|听说过|听过|了解|看过|去过|玩过|读过|吃过)(?:吗|么|没|不|啊)/u,
      matches: ['角楼你去过吗？', '《我要复仇》你看过吗', '798艺术区了解吗？', '梅兰芳纪念馆听说过吗？'],
      rejects: ['今天你去过吗', '我你知道吗', '角楼去过'],
    },
    {
      why: 'the thing named by its kind: "民族文化宫这个景点有什么特别的吗？", "听说北京动物园这个景点不错"',
      pattern:
        /^(?:听说|关于)?(《[^》]{1,20}》|[^，。！？?,!\s你我他她《]{2,20}?)(?:这|那)(?:个|部|本|首|家|座)(?:景点|景区|地方|电影|片子|书|歌|餐厅|饭店|博物馆|公园|剧院)/u,
      matches: ['民族文化宫这个景点有什么特别的吗？', '听说北京动物园这个景点不错', '《无名》这部电影'],
      rejects: ['我觉得这个景点不错', '这个地方真好'],
    },
    {
      why: 'a place the user is going to or asks after: "我想去中国国家博物馆玩", "查一下梨园剧场在哪里"',
      pattern:
        /(?:想去|要去|打算去|准备去|你去|查一下|叫)(《[^》]{1,20}》|[^，。！？?,!\s你我他她《]{2,20}?)(?:玩|参观|游玩|看看|逛逛|的地址|在哪|在什么地方|的地方|怎么样)/u,
      matches: ['我想去中国国家博物馆玩', '能帮我查一下宋庆龄故居的地址吗', '推荐一个叫簋街小吃的地方'],
      rejects: ['我想去睡觉了', '我想去看看'],
    },
  ] satisfies PatternRule[],
  topicLead: {
    why: 'what opens a topic name without being it ("了解一下故宫": 故宫)',
    pattern: /一下|下|的|关于/,
    piece: true,
    matches: ['一下', '的', '关于'],
    rejects: ['故宫', '一'],
  } satisfies PatternRule,
  askedOfName: {
    why: '"社稷坛这个景点在哪", "《霸王别姬》是谁导演": the name, not what is asked of it',
    pattern:
      /(?:这个|那个|这座|那座|这家|那家|这里|那里|在哪|在什么地方|你还记得|你记得|(?<=》)是(?:谁|哪|什么|几|多少)).*$/u,
    matches: ['社稷坛这个景点在哪', '烟袋斜街这个景点你还记得', '《霸王别姬》是谁导演'],
    rejects: ['社稷坛'],
  } satisfies PatternRule,
  nameTail: {
    why: 'a demonstrative, a particle or what is asked of it closing a topic name is not part of it',
    pattern: /(?:这个|那个|这部|那部|这首|吗|呢|的|的(?:位置|地址|电话|门票|票价|开放时间))$/u,
    matches: ['保利剧院吗', '这首', '琉璃厂古玩字画一条街的位置'],
    rejects: ['保利剧院'],
  } satisfies PatternRule,
  notATopic: {
    why: 'a "topic" opening on a pronoun or a question word ("你…", "怎么…", "哪一段"), or only what is asked of a place ("地址"), names no thing',
    pattern:
      /^(?:你|我|他|她|它|这|那|什么|怎|该|要不要|应该|如何|为什么|哪|谁|多少|[么吗吧呢不没])|^(?:地址|电话|门票|票价|价格|时间|开放时间|位置)$|(?:什么|怎么样?|哪儿?|谁|多少)$/u,
    // "愿意说说发生了什么吗？" asks what happened: "发生了什么" names nothing.
    matches: ['怎么做', '你的猫', '么我谈恋爱了', '哪一段', '谁的歌', '地址', '发生了什么'],
    rejects: ['保利剧院', 'Inception'],
  } satisfies PatternRule,
};
