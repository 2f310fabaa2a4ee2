import type { PatternRule } from '../types.js';

// The Chinese pack's questions: what ends one, what makes one a worry, how one is reported.

/** What makes a Chinese question a worry, beyond a painful feeling (questions.ts isConcern): any one of them. */
const concern: PatternRule[] = [
  {
    why: 'asking what to do, or a doubt about oneself, is a worry',
    pattern: /怎么办|该不该|是不是我|会不会.*我|我.*会不会/u,
    matches: ['我该怎么办？', '是不是我太胖了'],
    rejects: ['它为什么叫这个名字？'],
  },
  {
    why: 'a feared outcome ("如果我考不好…") is a worry; "如果去那里玩…" is curiosity',
    pattern: /(?:如果|要是|万一|假如).*(?:不|没|坏|差|失败|生病|生气|怪)/u,
    matches: ['如果我考不好，妈妈会不高兴的吗？'],
    rejects: ['如果在这里玩完还可以去哪个景点？'],
  },
  {
    why: 'a why about one\'s own life is a worry; "为什么叫这个名字" is curiosity',
    pattern: /为什么.*我|我.*为什么/u,
    matches: ['为什么朵朵今天不跟我玩了？'],
    rejects: ['它为什么叫这个名字？'],
  },
];

/** How a Chinese question is reported as what was asked (questions.ts). */
/** The frames a stage reports a worry or a wondering with (reportZh writes 担心, 不明白): the asker's, never a speaker. */
export const worryFrame: PatternRule = {
  why: 'the frames a stage reports a worry or a wondering with ("你担心…", "你不明白…", "想知道…"): the asker\'s words, read back as no speaker',
  pattern: /担心|不明白|想知道/u,
  piece: true,
  matches: ['担心', '不明白', '想知道'],
  rejects: ['放心', '明白'],
};

export const questions = {
  worryFrame,
  saidBy: {
    why: 'who a V1 line speaks for, before its frame ("你说…", "小雨问起…", "王峰担心…"): read.ts subjectOf',
    pattern: new RegExp(`^([^，。！？、：\\s]{1,8}?)(?:说|问起|问|${worryFrame.pattern.source})`, 'u'),
    matches: ['你说明天去', '王峰担心该怎么办', '小雨问起那只狗'],
    rejects: ['今天天气很好'],
  } satisfies PatternRule,
  toldQuestion: {
    why:
      'a question someone asked, quoted after the speaker\'s own words ("我妈又问我：“你什么时候结婚？”"): ' +
      'told, not asked (reported as the speaker\'s question it read "你问妈又问你…", refused every night)',
    pattern: /\S\s*[“"「][^“”"「」]+[?？][”"」]?$/u,
    // Its closing mark may be on the next line ("\r\n”"), after another quote ("在看“已黑”，妈妈又问我：“…？”").
    matches: [
      '不过我妈又问我：“你什么时候结婚？”',
      '他问："你去吗？"',
      '我们在看“已黑”，妈妈又问我：“你什么时候结婚？',
    ],
    rejects: ['“你什么时候结婚？”', '你知道《我要复仇》吗？', '他说：“好的。”你呢？'],
  } satisfies PatternRule,
  questionEnd: {
    why: 'a question ends on its mark, or in chat without punctuation on 吗 / 么, a question word or what 什么 asks for',
    pattern:
      /(?:[?？]|(?<![要那怎什])[吗么]|还是\p{Script=Han}{1,8}呢|(?<!不知道.{0,4})(?:(?<!没\p{Script=Han}{0,4})(?:什么|多少|几个|哪里|哪儿|怎么样了?|怎么办|为什么|是谁|好不好|行不行|对不对|是不是|可不可以)[呀啊呢]?|(?<!没|没有|不|知道\p{Script=Han}{0,3})(?:什么|哪个|哪些|哪种|哪家|哪位|哪里|哪儿)(?![都也的])\p{Script=Han}{1,2}[呀啊呢]?)|(?<!没|不知道|不管|无论)(?:什么(?![都也])|怎么|哪(?!怕)|谁(?![都也])|多少|几[点个天岁次年月号])[^，。！？,!?]{0,14}[呢呀啊]|^(?:你们?|我们?|他们?|她|它)?(?:是不是|有没有|要不要|会不会|能不能|可不可|还有没有)[^，。！？,!?]{0,24}|(?<![但可于要只总就也真还不倒老])是[^，。！？,!?]{1,12}还是[^，。！？,!?]{1,12}[呢啊吗呀]?)[”’」』）)"']*$/u,
    matches: [
      '布玛怎么办',
      '你喜欢看什么剧',
      '它叫什么名字',
      '知道保利剧院吗？',
      'Is it open on Sunday?',
      '是公的还是母的呢',
      '你们大学什么时候放假呢',
      '你的咖啡店筹备的怎么样了',
      '是不是在我最喜欢的沃尔玛买的',
      '你可不可带上你最喜欢的米老鼠去呢',
      '是自己奋斗还是房地产公司就是她家的啊',
      '那你喜欢去哪里玩',
    ],
    rejects: [
      '我没什么事',
      '什么都行',
      '画画什么的',
      '我不知道该怎么办',
      '我不知道去哪里玩',
      '我还是喜欢你',
      // 但是 and 还是 (still): "but I am still afraid", no choice asked.
      '但是我还是很害怕',
      '我也想养一只呢',
      '我什么都不想吃呢',
      '不知道什么时候放假呢',
      '我还是喜欢你啊',
      // 没…多少: not much, a statement.
      '她今年30岁整，没比我大多少',
    ],
  } satisfies PatternRule,
  askingEnd: {
    why: "what ends a question without being asked: its mark, a final particle (not 什么's 么)",
    pattern: /(?:[?？]+[”’」』）)"']*|(?<![什怎那要多这])[吗么呢吧呀啊嘛]+)$/u,
    matches: ['知道保利剧院吗？', '你去过吗'],
    rejects: ['你喜欢什么', '门票不贵'],
  } satisfies PatternRule,
  asksFor: {
    why: 'a question asking for something (什么, 哪, 谁…) is about no "X" to be asked about',
    pattern: /什么|啥|哪|谁|怎么|怎样|多(?:少|长|久|大|远|高|钱)|几|为何/u,
    matches: ['它为什么叫这个名字', '中国古代佛造像艺术馆在哪', '都啥时候开放呀', '那里面能游玩多长时间'],
    rejects: ['你对正乙祠戏楼有了解'],
  } satisfies PatternRule,
  whatAbout: {
    why: 'a question on 呢 with no question word asks what about the thing named ("电话呢？": what the phone number is), no yes or no',
    pattern: /呢[?？!！]*$/u,
    matches: ['电话呢？', '那开放时间呢'],
    rejects: ['门票贵吗？', '你去过吗'],
  } satisfies PatternRule,
  eitherOr: {
    why: 'a question that offers its answers ("是不是", "有没有", "贵不贵", "…还是…") still asks something with its mark gone',
    pattern: /(\p{Script=Han})[不没]\1|有没有|还是/u,
    matches: ['门票贵不贵', '你有没有去过', '是公的还是母的'],
    rejects: ['门票价格贵', '我不去'],
  } satisfies PatternRule,
  concern,
  about: {
    why: '"知道X吗", "去过X吗": asked about X',
    pattern: /^(?:你|您)?(?:知道|听说过|听过|了解|认识|看过|去过|玩过|读过|吃过|喜欢)(.{2,})$/u,
    matches: ['知道保利剧院', '你去过故宫'],
    rejects: ['我知道保利剧院', '知道'],
  } satisfies PatternRule,
  knownAbout: {
    why: '"你对正乙祠戏楼有了解吗": asked about 正乙祠戏楼',
    pattern: /^(?:你|您)?对(.{2,20}?)(?:有|很|比较)?(?:了解|兴趣|研究|熟悉)$/u,
    matches: ['你对正乙祠戏楼有了解'],
    rejects: ['你对我很好'],
  } satisfies PatternRule,
  questionOpener: {
    why: 'an interjection or 请问 opening a question is not what was asked',
    pattern: /^(?:嗯+|哦+|噢|啊|对了|请问|好的|收到|明白了?|哈哈+)[，,\s]*/u,
    matches: ['请问门票多少钱', '嗯，你去过吗', '收到，不知道这里几点餐馆比较方便'],
    rejects: ['门票多少钱'],
  } satisfies PatternRule,
  askerFrame: {
    why: '"你说，…", "你觉得…" only frames a question',
    pattern: /^(?:你说|你觉得|你看)[，,\s]*/u,
    matches: ['你觉得呢', '你说，他会来吗'],
    rejects: ['我觉得好'],
  } satisfies PatternRule,
  askedOfYou: {
    why: 'the user asking the companion "你有什么办法…": its 你 only asks (reported, "李雪担心你有什么办法" reads as the companion\'s trouble); the companion\'s 你 is the user and stays',
    pattern: /^你(?=有(?:什么|哪些|啥)|有没有(?![^，。]{0,4}过))/u,
    matches: ['你有什么好的方法来缓解压力', '你有没有喜欢的小说'],
    // "你有没有看过…" asks what the companion did: its 你 stays.
    rejects: ['你喜欢什么', '有什么好的方法', '你有没有看过哪些画家的作品'],
  } satisfies PatternRule,
  discourseThat: {
    why: '"那它…", "那么，…" is a discourse particle; "那只小狗" keeps its 那',
    pattern: /^那么?(?:[，,\s]+|(?=[它你我他她]))/u,
    matches: ['那它的门票是怎么收费的', '那么，我们去吧'],
    rejects: ['那只小狗是什么颜色的'],
  } satisfies PatternRule,
  youKnowEnd: {
    why: '"…你知道吗": what was asked is before it',
    pattern: /(?:你|您)(?:知道|清楚|了解|晓得)$/u,
    matches: ['门票多少钱你知道'],
    rejects: ['你知道门票多少钱'],
  } satisfies PatternRule,
  worryInside: {
    why: 'a question holding the asker\'s own worry after other words ("妈妈说我担心明天下雨呢？"): framed again it read "你担心妈妈说你担心…", so it is reported as asked',
    pattern: /.我(?!们)[^，,。！？\s]{0,2}?(?:担心|害怕|怕)/u,
    matches: ['妈妈说我担心明天下雨', '可是我好怕考不好'],
    rejects: ['我担心明天下雨', '怕不怕', '你担心什么'],
  } satisfies PatternRule,
  asksSomething: {
    why: 'a question that asks (吗, 呢, a question word, 是不是…), not a statement with a mark ("我的猫团团死了？", said in disbelief): only the first is a worry to frame (担心 would say what was not said)',
    pattern:
      /[吗呢么嘛]|什么|怎|为什么|为何|哪|谁|多少|几|是不是|会不会|能不能|要不要|有没有|可不可以|行不行|好不好|如何|咋/u,
    matches: ['如果我考不好，妈妈会不高兴的吗？', '我该怎么办？', '为什么朵朵不跟我玩？'],
    rejects: ['我的猫团团死了？', '我考砸了？'],
  } satisfies PatternRule,
  ownWorry: {
    why: 'a worry of the asker\'s that says so ("我还担心…", "其实我担心…") needs no frame; one asked of the other ("你害怕"), or of someone else ("妈妈不知道…"), does',
    // Not "知不知道…" (do you know…): a question asked of the other, its 不知道 no worry.
    pattern:
      /^(?![你您])(?:[^，,。！？\s]{0,2}?我(?!们)(?:[^，,。！？\s]{0,2}?|[也还都又更真其实有些点]{3,4}))?(?:担心|害怕|怕|好奇|想知道|(?<!知)不知道)/u,
    // "不过我也有些担心…" framed again read "张曼婷担心也有些担心…".
    matches: ['我还担心它会孤单', '好奇它叫什么', '我不知道该怎么办', '不过我也有些担心旅行费用可能会很高'],
    rejects: [
      '你害怕',
      '门票多少钱',
      '知不知道那里能玩多长时间',
      '收到，不知道这里几点餐馆比较方便',
      '妈妈不知道他会不会来',
    ],
  } satisfies PatternRule,
  aboutLead: {
    why: '"了解一下故宫": what was asked about is 故宫',
    pattern: /^(?:一下|下)/u,
    matches: ['一下故宫'],
    rejects: ['故宫'],
  } satisfies PatternRule,
  knowWhere: {
    why: '"（你）知道X在哪": what was asked is where X is',
    pattern: /^(?:你|您)?(?:知道|了解|清楚)(?=.{2})/u,
    matches: ['知道中国古代佛造像艺术馆在哪', '清楚地址'],
    rejects: ['知道', '我知道它在哪'],
  } satisfies PatternRule,
  answeredInSentence: {
    why: 'a question a stage reports, then its answer in the same sentence ("我问那在它边上还有什么景点，你说什刹海…"): two statements, the answer one of its own',
    pattern:
      /^(?:我|你|[^，。！？\s不没敢怕想]{2,6}?)问(?![题候])[^。！？]*，(?:我|你|[^，。！？\s不没怕听都也还]{2,6}?)说/u,
    matches: ['我问那在它边上还有什么不错的景点，你说什刹海', '小暖问你做了多久，你说做了三个星期'],
    rejects: ['你不敢问，怕她说不想跟你做朋友了', '我说好，你说行'],
  } satisfies PatternRule,
  askedAboutSomeone: {
    why:
      'a question naming whom it asks about ("你问张国荣是哪里人"): the 他 / 她 of its answer ("他是香港人，1956年出生的") ' +
      'is that person, named only in the question, so the answer is kept only with it',
    pattern:
      /^(?:[^，。！？\s]{1,8}?问[：:]?“?)?(?![你我他她它这那哪谁什么今昨明最现])\p{Script=Han}{2,4}(?:是(?:哪|谁|什么|多)|的(?:身高|生日|老婆|老公|妻子|丈夫|代表作|父亲|母亲|星座|血型|年龄)|多(?:大|高)|今年|哪年|出生|演过|拍过|唱过|还演|还拍|还唱|在《[^》]{1,20}》[里中]?(?:演|饰演|扮演))/u,
    matches: [
      '你问张国荣是哪里人',
      '张国荣的身高是多少？',
      '巩俐今年多大了？',
      '你问刘德华在《无间道》里演的是谁',
    ],
    rejects: [
      '那你男朋友身体好些了吗？',
      '他的身高是多少？',
      '你问他还演过什么电影',
      '那年纪比你大吗，有30了吗？',
    ],
  } satisfies PatternRule,
  reportedQuestion: {
    why: 'a question a stage reports with its mark gone ("你问门票不贵"), and who asked it; not 问题 / 问候',
    pattern: /(?:^|，)([^，。！？\s]{1,8}?)问(?:起)?(?![题候过])/u,
    matches: ['你问门票不贵', '我说好，小暖问那只小狗是什么颜色的'],
    // "我问过了，门票价格是30元" tells what was found out (kdconv/126 of the tune half).
    rejects: ['这个问题很难', '他向你问候', '你问过了，'],
  } satisfies PatternRule,
  affirms: {
    why: 'a short yes to the other\'s question ("你害怕吗？" "有一点"): it says what the question asked, a feeling too',
    pattern:
      /^(?:嗯+[，,]?\s*)?(?:有一?点(?:儿)?|有些|是的?|是啊|对(?:啊|呀)?|会|当然|特别|非常|很|超级)[，,。！!]?$/u,
    matches: ['有一点，', '嗯，有点', '是啊！', '当然'],
    rejects: ['有一点，但是讲解员说遇到地震要躲在桌子下面', '没有', '不是'],
  } satisfies PatternRule,
};
