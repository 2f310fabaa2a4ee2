import { type PatternRule, type WordsRule, words } from '../types.js';
import { clauses } from './clauses.js';
import { feelings } from './emotions.js';
import { factsAndNames } from './names.js';
import { people } from './people.js';
import { questions, worryFrame } from './questions.js';
import { smallTalk } from './small-talk.js';
import { topics } from './topics.js';

/**
 * The offline compressor's Chinese: every pattern and word list its pipeline reads for a Chinese
 * text (docs/eval/README.md, "Rules as data"). Each rule says why it is there and what it must
 * and must not match; rules.test.ts runs the examples. Its clauses (clauses.ts), emotion words
 * (emotions.ts), facts and names (names.ts), the speaker's own 我 and words for people (people.ts),
 * questions (questions.ts), topics (topics.ts) and relative-date words (dates.ts) are files of their own.
 */

/** What a Chinese core memory writes in its own words: why details went, what relates to the persona. */
export const CORE_MEMORY_TEXT = {
  forgotten: '抽取式压缩未选中的细节',
  interests: '与人格相关：',
  listSep: '、',
};

export const zh = {
  ...topics,
  ...factsAndNames,
  ...clauses,
  ...smallTalk,
  ...people,
  timeFirst: {
    why: 'Chinese puts a time first: "今天你去西湖边散步" says who as well as "你今天…"',
    pattern:
      /^(?:今天|昨天|明天|后天|前天|刚才|最近|上周|下周|这周|周末|早上|晚上|中午|下午|上午|今晚|昨晚|现在|后来|然后)[，,]?/u,
    matches: ['今天你去西湖边散步', '昨晚，小暖'],
    rejects: ['你今天去西湖边散步'],
  } satisfies PatternRule,
  secondPerson: {
    why: "the one spoken to (你 / 您): in the user's words, the companion",
    pattern: /[你您]/u,
    matches: ['你真聪明', '您好'],
    rejects: ['我去公园'],
  } satisfies PatternRule,
  ownSubject: {
    why: 'a clause with a subject of its own ("那你现在在干什么呢") or turning to ask ("那这个…", "是不是…", "不知道有没有…"): a question after a statement',
    pattern:
      /^(?:那么?|对了|请问|是不是|是否|难道|会不会|不知道(?=有没有|能不能|可不可以|是不是|该|怎么|哪|什么)|有没有|能不能|可不可以|[你您我他她它咱]|\p{Script=Han}{1,4}(?=[你您](?:知道|有|清楚|了解|记得)))/u,
    matches: [
      // What is asked for, fronted ("…，很便宜的，地址你知道吗？"): the question is that clause, not the price before it.
      '地址你知道吗？',
      '那你现在在干什么呢',
      '请问你去过吗',
      '那这个能玩多长时间',
      '是不是我太胖了，',
      '不知道有没有什么好的赛事值得我去看一下？',
      '有没有什么技巧可以分享给我？',
    ],
    rejects: ['布玛怎么办', '不知道为什么'],
  } satisfies PatternRule,
  told: {
    why: 'a clause with a number ("电话是010-67017074") or closed by an exclamation ("那挺适合我去玩的呀") before a question in its sentence is told, not the start of the question',
    pattern: /\d|[呀啊啦哦嘛]$/u,
    matches: ['那挺适合我去玩的呀', '太好啦', '地址是湖滨路8号'],
    rejects: ['是吧', '多长时间'],
  } satisfies PatternRule,
  condition: {
    why: 'a condition opening a clause ("如果…") keeps the question after it in its sentence',
    pattern: /^(?:如果|要是|万一|假如|假设|只要)/u,
    matches: ['如果你搬到北京', '要是下雨'],
    rejects: ['你搬到北京'],
  } satisfies PatternRule,
  cheer: {
    why: 'the companion cheering, welcoming or guessing a feeling ("恭喜你！", "你一定很自豪吧！"): no memory of the user, whatever it names',
    pattern:
      /^(?:[^，。！？]{1,8}?说)?(?:恭喜|祝贺|欢迎回来|欢迎|加油|太棒了|真棒|好厉害|真厉害|你一定很[^，。！？]{1,6}吧|我?(?:很|非常|真)?(?:遗憾|高兴|开心)(?:地)?听到|我?(?:也)?(?:真)?(?:替|为)你(?:感到)?(?:高兴|开心))/u,
    // The companion's sympathy or gladness too (MemoryBank zh tune 宫晓燕/2023-05-02: "我很遗憾听到你的情况。").
    matches: [
      '恭喜你！',
      '小暖说你一定很自豪吧！',
      '太棒了，火山模型！',
      '我很遗憾听到你的情况。',
      '我也替你高兴！',
    ],
    rejects: ['你得了二等奖。', '我说欢喜坨很好吃'],
  } satisfies PatternRule,
  aiSelf: {
    why: 'the companion saying what it is ("我是你的AI伴侣", "作为一款AI助手"): not a memory of the user, even addressed to them',
    pattern:
      /(?:我(?:的名字)?(?:只|并|也)?(?:是|不是|叫)|作为|身为)[^，。！？,.!?]{0,8}(?:AI|人工智能|(?:智能|虚拟|聊天|陪伴)(?:陪伴)?(?:助手|伴侣|机器人|程序)(?!员)|助手)|我(?:说)?(?:本身|自己)?(?:并|也|其实)?(?:没有|不具备|不具有)(?:实体|身体|真实的身体|特定的实体|运动能力|眼睛|(?:什么|具体的|个人的?)(?:有趣的)?(?:经历|兴趣爱好|爱好|喜好))|我(?:说)?(?:并|也)?不具备[^，。！？]{0,16}能力|显然我不会制作食物|我并不需要食物|为(?:您|你)提供(?:聊天)?陪伴服务|程序的?设定/iu,
    matches: [
      '我是你的AI伴侣。',
      // _check_ MemoryBank zh 曹志强's birthday (seed 3023's reading): its "birthday" is a setting, no memory.
      '其实我的生日只是程序的设定时间，但我也很喜欢庆祝生日。',
      '我的名字是AI伴侣助手。',
      '我在这里为您提供聊天陪伴服务，',
      '作为一款AI助手，我不能像人类一样感受。',
      '我只是一个AI伴侣。',
      '由于我是一款智能陪伴助手，',
      '作为一个虚拟伴侣，',
      '作为一个ai伴侣，',
      '作为助手，我没有口感。',
      '虽然我没有实体，',
      '我并不需要食物来维持生命。',
      // The companion telling it has no life of its own opened a V2 ("我本身没有什么有趣的经历。").
      '我说没有具体的兴趣爱好……与你分享相关的内容。',
      '我说虽然我没有眼睛，但我可以搜索相关信息了解它的内容。',
      '我说显然我不会制作食物。',
      '我并不具备观看电影和参与现实活动的能力。',
    ],
    rejects: [
      'AI技术将会广泛应用于各个领域。',
      '你是做AI研究的吗',
      '我是一个聊天程序员',
      '我没有时间',
      '我没有什么爱吃的',
      '我说没有，我们周末去了公园',
    ],
  } satisfies PatternRule,
  reportedConcern: {
    why: 'a user\'s question V1 reported ("你担心…"; not the companion\'s "我问…"): what the user needed',
    pattern: new RegExp(
      `(?:^|，)(?!我)[^，。！？\\s]{1,8}?(?:问起|问|${worryFrame.pattern.source}|不知道)`,
      'u',
    ),
    matches: ['你担心考不好', '你在看大侦探波罗，你问喜欢看什么剧'],
    rejects: ['我问你现在在干什么', '你去公园'],
  } satisfies PatternRule,
  relativeDate: {
    why: 'a relative date ("下周二", "三天前") gets the day it meant beside it; dates.ts spanZh reads its groups',
    pattern:
      /(今天|今晚|今早|明天|明晚|明早|大后天|后天|昨天|昨晚|大前天|前天|今年|明年|去年|大前年|前年)|(下下|上上|下|上|这|本)个?(?:周|星期|礼拜)(?![边围遭到全期])([二三四五六日天末]|一(?!起))?|(下下|上上|下|上|这)个月|(?<![\d一两二三四五六七八九十百千几多])([一二三四五六七八九]?十[一二三四五六七八九]?|[一两二三四五六七八九]|\d{1,2})(天|周|个星期|个月|年)(前|后)/gu,
    // 大后天 is three days on and 下下周 the week after next: read as 后天 / 下周 they were a false day.
    matches: ['下周二去上海', '三天前', '明年三月搬家', '大后天', '下下周', '上上个月', '十五天前', '大前年'],
    // 周边 / 周围 is what is near, not a week: "这周边" had a week's date put inside it.
    // A count inside a larger one ("100天后" read "00天后") or a range ("三四天前" read "四天前") is no day said.
    rejects: ['一周一起去', '每天', '北京大学就在这周边呀', '这周围很安静', '100天后', '三四天前'],
  } satisfies PatternRule,
  figurativeDay: {
    why: 'before a relative date, a figure of speech ("仿佛就在昨天"): no day to anchor (dates.ts)',
    pattern: /(?:(?:仿佛|犹如|宛如)(?:就)?(?:在|是)?|好像就在|就像在)$/u,
    matches: ['那些日子仿佛就在', '一切犹如', '好像就在'],
    // "就像昨天说的那样" is the day it was said.
    rejects: ['我好像', '我们', '就像'],
  } satisfies PatternRule,
  eventTail: {
    why: 'after 我 (or a speaker\'s name): a plan, preference or event of theirs ("我打算", "我们最喜欢"), a turn in their life ("我谈恋爱了", "我住院了")',
    pattern:
      /(?:们)?(?:最|也|还|很|真|特别|非常|一直|都|就|终于|刚刚|现在){0,2}(?:想|要|会|打算|准备|计划|考虑|喜欢|爱|讨厌|不喜欢|去[看玩吃听逛爬]?[了过]|刚|已经|正在|最近|明天|下周|今天|昨天|买了|养了|开始|决定|报名|参加|搬|换了|学|在[看玩学做写读听练找忙追]|谈恋爱|恋爱了|分手|结婚|离婚|订婚|怀孕|辞职|失业|毕业|升职|入职|考上|生病|住院|出院|退休|受伤|是(?![不说否吗]))|打算|准备去|计划/,
    piece: true,
    matches: [
      '想',
      '们最喜欢',
      '打算',
      '还很喜欢',
      '在看',
      '现在考虑',
      '谈恋爱',
      '终于毕业',
      '住院',
      '去看了',
      // "我是守门员", "打篮球我是专业的": what the user is, as much theirs as what they do.
      '是',
      '就是',
    ],
    rejects: ['门票', '吃饭', '在北京', '是不是', '是说'],
  } satisfies PatternRule,
  myOwn: {
    why: 'something of the speaker\'s own ("我的", "我妈") is worth a little more',
    pattern:
      /我(?:们)?(?:的|家|妈|爸|女儿|儿子|孩子|老公|老婆|男朋友|女朋友|朋友|同事|老板|表|堂|姐|妹|哥|弟|爷爷|奶奶|外公|外婆)/,
    matches: ['我的猫', '我们家', '我奶奶'],
    rejects: ['我去公园'],
  } satisfies PatternRule,
  firstPerson: {
    why: "a question in the first person is about the asker's own life",
    pattern: /我/,
    matches: ['我该怎么办'],
    rejects: ['你该怎么办'],
  } satisfies PatternRule,
  leadsOn: {
    why: 'a condition, a concession or a cause opening a clause cannot stand without the next one',
    pattern:
      /^(?:当(?![然今代地初])|[^，。]{0,8}?(?:如果|要是|假如|假设|万一|倘若|即使|哪怕|就算|虽然|尽管|只要|只有|除非|一旦|既然|等到|因为|由于|为了))/u,
    matches: ['如果我考不好', '当我回家的时候', '我因为下雨'],
    rejects: ['妈妈会不高兴的', '我们去公园', '当然了'],
  } satisfies PatternRule,
  roleWord: {
    why: 'a label that is a role word ("用户：") names a speaker even if it opens one line only',
    pattern: /用户|助手|系统/,
    piece: true,
    matches: ['用户', '助手'],
    rejects: ['小暖', '用户们'],
  } satisfies PatternRule,
  placeholder: {
    why: 'what a chat app puts for what is not text ("[表情]"): no words of anyone',
    pattern: /表情|贴图|图片|语音|视频|文件/,
    piece: true,
    matches: ['表情', '图片'],
    rejects: ['照片', '表情包'],
  } satisfies PatternRule,
  ...questions,
  feeling: {
    why: 'the user saying how they feel ("我最近感到很累"): a feeling even where the emotion words do not know its word; 感觉 and 觉得 are more often an opinion, and are not one',
    pattern: /我(?:很|真的|有点|有些|挺|非常|一直|总是|最近|常常|经常)?感到/u,
    matches: ['我最近感到很累', '我感到迷茫'],
    rejects: ['我感觉这部电影不错', '我觉得很好吃', '他感到很累'],
  } satisfies PatternRule,
  opinion: {
    why: 'the user saying what they think ("我觉得恭王府就很不错"): their view, worth more than what the companion knows',
    pattern: /我(?:倒|还|也|真|一直)?(?:觉得|认为|感觉)(?!到)/u,
    matches: ['我觉得恭王府就很不错', '我一直认为他是对的'],
    rejects: ['我感觉到很累', '你觉得呢'],
  } satisfies PatternRule,
  advice: {
    why: 'the companion telling the user what to do ("我推荐你去看一下黄山", "你可以试试") or agreeing it likes the same ("我也很喜欢"): second to the user\'s own words even with a place in it',
    pattern:
      /(?:我|我们)?(?:推荐|建议)你|你(?:可以|应该|不妨|最好)(?:试|去|多|选择|尝试|考虑|找)|不妨|^我也(?:很|非常|特别|挺|好)?(?:喜欢|爱|想)|^(?:可以|记得|别忘了?|不要|千万别|试着|试试)(?![的啊呀吧了。！，]|$)/u,
    matches: [
      '比如说要是你喜欢自然风光，我推荐你去看一下黄山',
      '你可以尝试寻找一些新的爱好',
      '我也非常喜欢。',
      '我也很喜欢看电影。',
      '可以每天先用慢速练左手十五分钟，',
      '不要一个人下河。',
    ],
    rejects: [
      '我可以帮你',
      '我推荐过这本书',
      '你可以的',
      '我最喜欢的电影是《阿凡达》',
      '可以啊！',
      '不要了。',
    ],
  } satisfies PatternRule,
  ailment: {
    why: 'the body hurting or worn out ("我的身体有些疲倦", "精力不足", "胃部不适"), or a misfortune ("家里被淹了", "我被裁员了"): the user\'s pain as much as a sad word is, though no emotion names it',
    pattern:
      /疲倦|疲惫|(?<!积|劳)累(?!计|积)|不舒服|不适|难受|头疼|头痛|胃疼|肚子疼|失眠|睡不着|生病|发烧|感冒了|受伤|精力不足|没精神|没力气|住院|手术|病倒|病了|癌|肿瘤|中风|心脏病|白血病|糖尿病|老年痴呆|阿尔茨海默|化疗|确诊|出事|车祸|着火|失火|漏水|被淹|淹了|被偷|被盗|失业|被裁|裁员|被开除|骨折|摔倒|没(?:有)?(?:得到|拿到|考上|通过|选上|被录取)|被拒|落选|考砸|没考好|学不会|做不好|记不住|总是失败/u,
    matches: [
      '上周我家被淹了，',
      '但是都没有得到面试的机会。',
      '我被裁员了。',
      '近来我感觉到我的身体有些疲倦，',
      '精力不足。',
      '我经常感觉到胃部不适。',
      '工作太累了',
      '因为爷爷住院了，',
      '我最近在学做面条，可是总是做不好。',
      '我妈去年查出了癌症，',
    ],
    rejects: ['累计100元', '我今天很开心。', '积累经验'],
  } satisfies PatternRule,
  said: {
    why: 'a stage line opening with who said it ("我说是北京市…"): what follows counts',
    pattern: /[^，。！？、\s]{1,8}?说/u,
    piece: true,
    matches: ['我说', '小暖说'],
    rejects: ['我觉得', '说'],
  } satisfies PatternRule,
  interjection: {
    why: 'a clause that is only an interjection, an agreement or a greeting ("是的，"): nothing to keep',
    pattern:
      /^(?:嗯+|恩+|啊+|哦+|噢+|哇+|哈+|呵+|好的|好吧|好呀|好啊|是的|是啊|是呀|对+|对的|对啊|对呀|没错|可不是嘛?|那可不|(?:肯定|确实|的确)不错|当然|有|有啊|有呀|有的|在的|在呢|我在|嗯嗯|好|行|可以|想|会|能|要|谢谢|不客气|(?:\p{Script=Han}{2,3}?)?(?:你好|您好|早上好|早安|下午好|晚上好|晚安)(?:[，,\s]*(?:朋友|亲爱的))?|(?:我)?(?:当然|恰巧|正好|刚好)?(?:知道|了解|晓得|听说过)(?:一些|些|一点|一点点)?|(?:我)?(?:也)?(?:很|非常|真)?(?:高兴|开心)(?:能)?认识你(?:这个[\p{Script=Han}A-Za-z]{1,6})?|有些了解|有点了解|略知一二|不知道|是吗|真的吗|是嘛|对吗|(?:我)?(?:还|另外)?(?:有|想问你|想请教你|问你)(?:一个|个|一些)?小?问题(?:想(?:问你|请教你))?)[呀啊哦呢吧的！!。，,\s~～]*$/u,
    matches: [
      '是的，',
      // "你说恭王府你知道。对对，因为恭王府…" (kdconv/19 of seed 3018's reading, _check_).
      '对对，',
      '可不是嘛，',
      '嗯嗯',
      '恩。',
      '我知道一些',
      '你好，朋友！',
      '早上好！',
      '很高兴认识你。',
      '很高兴认识你这个聊天ai',
      '小依晚上好',
      '还有一个问题，',
      // A yes that says the question's verb ("你想给它写一封信吗？" "想，我要…"): "你说想，你要…" read as a wish.
      '想，',
      '我想问你一个问题。',
      '肯定不错啊,',
    ],
    rejects: [
      '是的，我明天去',
      '知道保利剧院吗？',
      '今天天气很好',
      '我有一个问题没解决',
      '恩人',
      '很高兴认识你的妈妈',
    ],
  } satisfies PatternRule,
  vocative: {
    why: 'a name a turn opens by calling before a greeting ("小度，晚上好呀", "小度，你在么"): who is spoken to',
    pattern:
      /^(\p{Script=Han}{2,3})[，,！!]\s*(?:你好|您好|早上好|下午好|晚上好|早安|晚安|你在[吗么]|在[吗么]|(?<=^小\p{Script=Han}{1,2}[，,！!]\s*)(?=你))/u,
    matches: ['小度，晚上好呀', '小度，你在么', '小度，你醒了吗？'],
    rejects: ['北京，我去过', '你好，小度', '小度', '北京，你去过吗？'],
  } satisfies PatternRule,
  greeting: {
    why: 'a greeting opening a clause ("你好啊，AI伴侣。"): who is spoken to, not what is said',
    pattern: /你好|您好|嗨|哈喽|早上好|晚上好/,
    piece: true,
    matches: ['你好', '早上好'],
    rejects: ['谢谢', '你好吗'],
  } satisfies PatternRule,
  ...feelings,
  askedEitherWay: {
    why: 'a question asked both ways ("有没有喜欢的") is no negation',
    pattern: /有没有?$/u,
    matches: ['你有没有', '有没'],
    rejects: ['我没有'],
  } satisfies PatternRule,
  functionChars: {
    why: 'characters that only glue a sentence together: a character pair with one carries little',
    words: new Set([
      ...'的了吗呢吧呀啊嗯哦哈是在有和也都就还很那这你我他她它们个么啦嘛哇噢喔与及或而但又被把给让对从向到会能要想去来说得地着过吧呗哟嘿咯',
    ]),
    matches: ['的', '了', '我'],
    rejects: ['猫', '京'],
  } satisfies WordsRule,
  filler: {
    why: 'words of small talk (agreeing, thanking, hedging): a character pair that carries no fact',
    words: words(
      '知道 是的 好的 没错 对的 谢谢 不客气 哈哈 可以 当然 不错 真的 一下 什么 怎么 这样 那样 确实 应该 觉得 听说 非常 特别 一个 一些 东西 时候 原来 这么 那么 好吧 感觉',
    ),
    matches: ['知道', '觉得'],
    rejects: ['北京', '门票'],
  } satisfies WordsRule,
};
