import type { PatternRule } from '../types.js';
import { worryFrame } from './questions.js';

// The Chinese pack's clauses: which cannot stand alone and go with the one they lean on or lead
// into (statements.ts atoms, leansBack), and what a clause alone is left without.

/** Openers that need what came before (statements.ts leansBack). */
const leansBack: PatternRule = {
  why: 'a pronoun or demonstrative, an adverb needing a subject (也, 还, 才, 毕竟, 先后), an example or a cause, inside a place said before ("馆内"): it leans back',
  pattern:
    /^(?:是(?!不是|哪|什么|谁|怎么|多少|几)|它们?|他们?|她们?|其(?![实他它余])|此|该|这(?!(?:周|个月|次|两天|几天|段时间|阵子|些天|些日子|段日子|学期|天|会儿|年|一年))|那(?!(?:周|个月|次|两天|几天|段时间|学期|天|会儿|年|一年|在|你|我|就|还|要|么|您|咱))|而|也|还|又|才|就|都|却|并|或者|或是|尤其|特别是|毕竟|先后|原来(?=是|如此|这样)|原(?:是|为|名|称)|又(?:称|名)|后(?:因|被|改|来因|来(?![我你您他她它咱大]))|因(?:而|此)|比如|例如|譬如|包括|以及|如(?![果何今此同意实])|不知道(?![你您吗呀啊呢])|(?:做|用|花|买|去|吃|看|玩|学|写|画|跑|走|等|试|练|读|听|拿|赢|输)[了过](?!\p{Script=Han}{0,2}[吗呢？?])|给[我你他她](?:们)?(?:买|做|送|带|讲|发|拿|寄|准备|煮|织|画|写)了|叫做|叫作|名叫|讲(?:的是|述了?)|说的是|描述了|使(?!用)|令|让(?![我咱]们)|能够|得到|获得|受到|位于|坐落|(?:馆|园|寺|院|殿|宫|楼|庙|坛)内|始建|建于|建成|占地|拥有|具有|有着|适合|(?:必须|很|非常|真的)?值得|从而|进而|以便|以免|以防|免得|来(?:衡量|判断|决定|选择|实现|提高|提升|帮助|改善|缓解|减轻|放松|调节|应对|解决|增加|保持|表达|确定|评估)|无法|没法|更(?:是|加)|为(?:您|你)(?!们)|(\p{Script=Han})\1地|(?:认真|仔细|努力|耐心|积极|悄悄|默默|偷偷|渐渐|不断)地|[我你他她咱]们?(?:也|都)(?:不|没)?(?:会|是|懂|行|喜欢|想|要|有|能|知道)[啊呀呢吧诶哦啦嘛哈]*[。！!…～~]*$|(?:肯定|一定|确实|的确)(?:很|挺|是|也)?(?:不错|好玩|好|棒|值得)|\p{Script=Han}{1,8}[这那](?:个|里|儿)?[啊呀呢吧哦]*[，。！!～~]*$)/u,
  matches: [
    '它是2001年上映的。',
    '也是北京的时尚地标之一。',
    '那里面能游玩多长时间',
    '叫做《肖申克的救赎》，',
    // After "《活着》我看过，": what the story is of, only the clause before names.
    '讲的是福贵一家的故事。',
    '讲述了一个少年的成长，',
    '使你更容易精神饱满。',
    // After "其实最近家里出了一些事，": what makes the user anxious, only that clause says.
    '让我有些焦虑和疲惫，',
    '静静地坐在一个安静的地方，',
    '得到了广大观众和媒体的高度评价。',
    '位于北京市东城区，',
    // _check_ After "中国科学技术馆你知道，": which hall, only that clause says (kdconv/150 read it as 国家体育馆's).
    '馆内除了众多的科技展览，还有专门适合儿童的科学乐园。',
    '如散步、瑜伽或游泳。',
    '不知道该朝着什么方向发展。',
    '做了三个星期……',
    // After "妈妈来接我，": who bought it, only that clause says.
    '给我买了一根冰淇淋。',
    '更是一个美好的回忆。',
    '为您提供更多有用的帮助哦。',
    '无法感受到游泳的乐趣。',
    // After "我觉得天安门广场就很不错": alone, it reads as the place named before that.
    '毕竟是位于北京的中轴线上，',
    '先后作为大贪官和珅、庆亲王永璘的宅邸，',
    // After "先后作为…的宅邸，": which place was named so, only the clause before says.
    '后因恭亲王奕訢居住而得名，',
    // After "你会做手工，": what the companion cannot do, only that clause says.
    '我都不会诶',
    '我也是。',
    // After "我觉得恭王府就很不错", "北京海洋馆就在附近": what is not bad, what is known, only that line says.
    '肯定不错了，',
    // After "我觉得天安门广场就不错": what is worth a visit, only that line says.
    '必须值得一去。',
    // After "我觉得附近的杂书馆就很不错": what it turns out to be, only that line names.
    '原来是由高晓松担任馆长的大型私立公益图书馆，',
    // _check_ After "颐和园里很不错，": whose palace it was, only that clause says (kdconv/127 read it as 仁寿殿's).
    '原是清朝帝王的行宫和花园，',
    // After "徐峥演的程勇，": who lost everything, only that clause says (a written film chat).
    '后来为了救病人倾家荡产。',
    '又称清漪园。',
    // After "桂林也是一个美丽的地方，": whose peaks, only the clause before says.
    '有着奇怪的石灰岩山峰和与众不同的生态环境，',
    '我还真知道这，',
    // After "同时也要根据自己的实际情况，比如技能水平和行业经验，": what to weigh so, only the clauses before say.
    '来衡量新的工作机会是否合适。',
    // After "记得带好装备、饮食和防护用品，": what the care is for, only that clause says.
    '以防出现突发情况。',
  ],
  rejects: [
    '这周末我去爬山。',
    // A time, not a thing said before: it stood on the companion's "我听着呢" and went with it.
    '这阵子我总觉得身体很疲惫，',
    // A question opening on 是 asks; it leans on no 真的吗 before it (a written film chat).
    '是哪一段让你们这么感动？',
    // "后来" with a subject of its own goes on by itself.
    '后来我们就分手了。',
    // 其实 ("actually") is no 其 ("its"): it leaned on the companion's line before it.
    '其实我最近跟她关系有点紧张，',
    '公园内有很多人在跳舞。',
    '如果我考不好，妈妈会不高兴的。',
    '是不是我太胖了',
    '使用筷子很难。',
    '让我们一起加油！',
    '可以！',
    '地铁很挤。',
    '如果下雨就不去了',
    '如今大家都用手机。',
    '讲故事是我的强项。',
    '不知道你喜欢什么？',
    '去过吗？',
    '为什么会这样？',
    '更衣室在二楼。',
    '后天我们去爬山。',
    '我也喜欢画画。',
    '我喜欢这里的樱花。',
    // 那 as "then" opens a question of its own; a chain of four such leanings cut "什刹海，" from "它边上…".
    '那在它边上还有什么不错的景点呀？',
  ],
};

export const clauses = {
  leansBack,
  feelingAfterCause: {
    why:
      'the speaker\'s bare feeling after what caused it, in one sentence ("小明抢了我的水壶，我很生气，…"): alone it is ' +
      'a feeling of nothing, so it goes with the clause before it',
    pattern:
      /^我(?:还是|还|依然|仍然)?(?:很|好|特别|非常|有点|有些|真的|超级)?(?:生气|难过|伤心|委屈|害怕|紧张|失望|开心|高兴)[了啊呀啦]*[，。！!…]*$/u,
    matches: ['我很生气，', '我还是有点委屈。', '我好开心！'],
    rejects: ['我很生气他不理我。', '我也很开心。', '妈妈很生气。'],
  } satisfies PatternRule,
  trailing: {
    why:
      'a short clause closing a sentence with no person of its own ("…，感受内心的平静。", "…，华威桥东南侧。"): ' +
      'what it says is of the clause before it in the sentence; one with a number ("出差一共三天。") is a fact alone',
    pattern: /^(?![我你您他她它咱大家])(?!.*[\d两三四五六七八九十])[^，,。！？!?、；;]{2,7}[。！!…]*$/u,
    matches: ['感受内心的平静。', '华威桥东南侧。', '成功登山。', '很难过。'],
    rejects: [
      '我也很开心。',
      '她真是个好人。',
      '你觉得呢？',
      // A question of its own ("10元，很便宜的，地址你知道吗？"): leaning, it took "很便宜的" with the address.
      '地址你知道吗？',
      '可以考虑去公园或者郊游，',
      '这是我第一次一个人出国旅行。',
      '出差一共三天。',
      '旺季15元。',
    ],
  } satisfies PatternRule,
  deferral: {
    why: 'putting off what the clause before said ("等明年三月搬家以后再说吧"): alone it does not say what waits',
    pattern: /^等.{1,24}?(?:再说|再看|再决定|再考虑|再讲)/u,
    matches: ['等明年三月搬家以后再说吧。', '等考完试再决定'],
    rejects: ['等了好久', '我们再说一遍'],
  } satisfies PatternRule,
  causeInSentence: {
    why:
      'a cause opening a later clause of its sentence ("有点难过，因为爷爷住院了，没能来看") explains the clause before: ' +
      'kept without it, the feeling loses why (it still goes with the clause after it, leadIn)',
    pattern: /^(?:因为|由于)/u,
    matches: ['因为爷爷住院了，', '由于下雨'],
    rejects: ['爷爷住院了', '我因为下雨没去'],
  } satisfies PatternRule,
  pronounInside: {
    why: 'a 他 / 她 / 它 inside a clause ("我有点想他") means someone the clause before it named',
    pattern: /[他她它](?![们人])/u,
    matches: ['我有点想他', '妈妈给她买了裙子'],
    rejects: ['他们都来了', '其他人', '我很想家'],
  } satisfies PatternRule,
  advisedYou: {
    why:
      'advice whose subject is 你 ("最后，你可以结识一些有影响力的人，"): the clauses after it with no one as subject ' +
      '("找到机会和平台，展示自己的才华和价值。") are still the user\'s to do; alone they read as the speaker\'s own',
    pattern:
      /^(?:[^，。！？我你他她它]{1,4}[，,]?\s*)?你们?(?:也|还|就|都|一定)?(?:可以|应该|要|需要|得|不妨|能|最好)/u,
    matches: ['最后，你可以结识一些有影响力的人，', '你要多休息，', '平时你也可以试试'],
    rejects: ['我可以帮你', '你说得对', '他要你去'],
  } satisfies PatternRule,
  address: {
    why: 'an address ("地址在…天坛路甲1号", "位于海淀桥东南侧") is the place the talk is on, not a new one: its 区 / 路 / 桥 name none',
    pattern:
      /地址|位于|坐落在|(?:路|街|道|巷|胡同)\S{0,4}\d+号|[东西南北](?:起|至)\p{Script=Han}|^(?:[^，。]{1,4}说)?(?:在|是)?\p{Script=Han}{2,3}市\p{Script=Han}{2,3}区/u,
    matches: [
      '你说地址在北京市东城区天坛路甲1号。',
      '位于北京朝阳区东三环，华威桥东南侧。',
      // The answer to "你知道景点的地址吗？" after 什刹海: its streets are no new place, and the address is 什刹海's.
      '我说北京市西城区东起地安门外大街北侧、南至新街口北大街的区域。',
    ],
    rejects: ['天坛就在附近。', '恭王府不错，是清代规模最大的一座王府。'],
  } satisfies PatternRule,
  pointedPlace: {
    why: 'a question of a place pointed at ("你问他家都几点开门", "那里门票多少钱"): not the topic\'s, so its answer is not',
    pattern: /[他它]家|那(?:里|儿)/u,
    matches: ['你问他家都几点开门。', '那里门票多少钱？', '那儿好玩吗'],
    rejects: ['我回家了', '这里门票多少钱？', '它的门票多少钱？'],
  } satisfies PatternRule,
  placeInside: {
    why:
      'a 此 / 这里 / 那里 of place inside a clause ("众多国家象征都坐落于此"), or a bare 那 one goes to and looks ' +
      'round ("你还可以去那溜达一圈"), means the place said before it',
    pattern:
      /(?:于|在|到|来|去)(?:此(?![外时后前之期为基])|这里|那里|这儿|那儿|那(?=[溜逛玩走看转坐待住拍]))/u,
    matches: ['众多国家象征都坐落于此。', '各种大型庆典也都在这里举办', '你还可以去那溜达一圈', '到那逛逛'],
    rejects: [
      '此外还有',
      '我在家里',
      '在此之前',
      '在此期间',
      '到此为止',
      '在此基础上',
      '去那家店',
      '在那时候',
    ],
  } satisfies PatternRule,
  noPerson: {
    why:
      'a clause with no one as its subject ("走得很安详", "每天早上给我做葱油饼") after one naming 他 / 她 / 它 ' +
      '("她九十二岁了，"): its subject is that one; alone, it reads as its speaker\'s own doing',
    pattern: /^(?![^，。！？]{0,3}[我你您他她它咱俺])/u,
    matches: ['走得很安详。', '现在打了止痛针好一点了。', '每天早上给我做葱油饼。'],
    rejects: ['今天我去了公园', '他们都来了', '你好'],
  } satisfies PatternRule,
  measuredAnswer: {
    why:
      'a bare answer that says what it measures ("能玩0.3小时 - 0.5小时", "可以游玩2小时", a place\'s hours ' +
      '"9:00-17:00（16:00停止售票）"): on the topic, it tells the topic\'s own fact without its question ("40元" ' +
      'says nothing of what costs it)',
    pattern:
      /^(?:应该是|大概是|大约是|也就)?(?:能|可以|需要|要|大约|大概|约)?(?:玩|游玩|逛)(?:上)?\d|^\d{1,2}[:：]\d{2}\s*[-－—~至到]\s*\d{1,2}[:：]\d{2}/u,
    // _check_ (kdconv/114 of seed 3018's reading): the topic's hours were left out of V2 with their question.
    matches: [
      '能玩0.3小时 - 0.5小时。',
      '可以游玩2小时 - 3小时吧。',
      '也就玩1小时',
      '9:00-17:00（16:00停止售票），',
    ],
    rejects: ['40元。', '1小时 - 2小时吧。', '我说去过啊，挺不错的。'],
  } satisfies PatternRule,
  bareAnswer: {
    why:
      'a reply to the other\'s question that is only a number or a list ("1956年出生的", "张国荣、巩俐", "能玩2小时"): ' +
      'whose number or list it is, only its question says',
    pattern:
      /^(?:应该是|大概是|大约是|差不多|估计是?|可能是|也就|是)?(?:《[^》]{1,20}》[。！，]?$|\d|[一二两三四五六七八九十几半]+(?:个|岁|年|小时|分钟|元|块|天|次)|(?:能|可以|需要|要|大约|大概|约)(?:玩|游玩|逛)?\d|(?:《[^》]{1,20}》|[^，。！？、\s]{1,8})(?:、(?:《[^》]{1,20}》|[^，。！？、\s]{1,8}))+[。！，]?$|(?!地址)(?:[^，。！？、\s我你他她它]{1,6}[省市区县])+[^，。！？、\s]{2,16}(?:[东南西北]侧|号|对面|路口|内)[。！]?$)/u,
    matches: [
      '1956年9月12日出生的。',
      '张国荣、巩俐、张丰毅。',
      // One title alone ("他还有什么代表作？" "《花样年华》，…"): whose work it is, only the question says (a written film chat).
      '《花样年华》，',
      // A list said before a comment on it ("《英雄本色》、《阿飞正传》，都很经典。"): whose films, only the question says.
      '《英雄本色》、《阿飞正传》，',
      '《红高粱》、《大红灯笼高高挂》、《活着》，',
      '能玩0.2小时 - 0.3小时。',
      '大约2小时',
      '应该是14岁吧',
      // _check_ (kdconv/6, read for seed 3014): "你说是45元。" told nothing of what costs 45元.
      '是45元。',
      '也就2小时 - 4小时吧。',
      '海淀区圆明园遗址公园北侧。',
      '北京市西城区羊房胡同什刹海公园后海公园内。',
    ],
    rejects: [
      '我周末打算去看',
      '巩俐是辽宁沈阳人，1965年出生。',
      '你好',
      '位于颐和园东宫门内',
      '我家在海淀区北侧',
      '地址是北京市东城区东单三条8-2号',
    ],
  } satisfies PatternRule,
  connective: {
    why: 'a connective alone ("而且…") does not lean back: it is dropped when its clause stands alone',
    pattern:
      /^(?:而且|并且|但是|但(?![愿凡])|可是|可(?=我|你|他|她|它|这|那)|那(?=我|咱)|不过|然而|所以|因此|因而|于是|然后|接着|另外|此外|同时|甚至)[，,]?\s*/u,
    // "那我明天…" ("then I…"): rewritten, "乐乐说那乐乐明天…" leaned on the line before as a 那 pointing back.
    matches: [
      '而且门票只要40元。',
      '但是，我还是去了',
      '但需凭有效证件入馆。',
      '可我真的很害怕出现意外',
      '那我明天跟姐姐一起去找陈老师。',
    ],
    rejects: ['门票只要40元。', '但愿明天不下雨。', '可以的', '可爱的小猫', '那里很好玩', '那天我哭了'],
  } satisfies PatternRule,
  restriction: {
    why:
      'an exception after its clause ("我也不喝酒，除了在婚礼上", "我不能去，除非医生说没事"): without it, the ' +
      'clause says more than was said, so the two go together (万一 / 要是 mostly open a condition of the next: ' +
      '"有点紧张，万一我没扑住球，…？" lost the feeling with the question)',
    pattern: /^(?:除了|除非)/u,
    matches: ['除了在婚礼上。', '除非医生说没事。'],
    rejects: ['我除了上班什么都不做', '如意'],
  } satisfies PatternRule,
  listTail: {
    why: 'the rest of a list the clause before began ("周边有天安门广场，天坛等多个景点呢"): alone it names places nobody said were where, so it goes with it',
    pattern:
      /^\p{Script=Han}{2,10}等(?:多个|几个|好几个|很多|许多)?\p{Script=Han}{0,4}[呢啊呀吧。！，]*$|^\p{Script=Han}{1,6}…+$/u,
    // "有南锣鼓巷，故宫……" (_check_): cut from it, 故宫 was left out and its prices stood as 南锣鼓巷's.
    matches: ['天坛等多个景点呢。', '恭王府等。', '故宫……'],
    rejects: ['众多名人故居、王府等古迹散落其中。', '我等了很久，他才来。'],
  } satisfies PatternRule,
  listItem: {
    why: 'a few words after a comma that go on the clause before, a list\'s next item ("我喜欢唱歌跳舞，健身，旅游，电影，摄影。") or its end ("最终我补充了能量，成功登山。"): tested on the two clauses together, it goes with the one before (a list of five would otherwise chain past statements.ts MAX_CHAIN and lose its last item); not a comment of its own ("很好", "也不错", "是吧")',
    pattern:
      /[，、](?![很真太好挺非也都就还不没是有在会要想能可吧呢啊呀哦嗯对])\p{Script=Han}{1,4}[，、。！]?$/u,
    matches: ['我喜欢唱歌跳舞，健身，', '电影，摄影。', '最终我补充了能量，成功登山。'],
    rejects: [
      '今天天气不错，很好。',
      '我去了公园，也不错。',
      '我们一起去吧，好吗？',
      '你呢，平时都做些什么？',
    ],
  } satisfies PatternRule,
  leadIn: {
    why: 'a time, cause, condition or role clause, or a question\'s first half, before its main clause ("…的时候，", "今天是星期天，", "因为下雨，", "作为清代最大的王府，", "是不是我太胖了，"): alone it says nothing ("你说作为清代规模最大的一座王府。"), so it goes with the next',
    pattern:
      /(?:的时候|时候|的时|以后|之后|之前|以前|(?<=[\p{Script=Han}\d])[前后])[，,]$|^在[^，,。！？]{1,20}[下中][，,]$|^(?:在|当)[^，,。！？]{1,20}时[，,]$|^(?:今天|昨天|明天|最近|刚才|前几天|这几天|上周|下周|周末)(?:（[^）]*）)?(?:是(?:星期|周|礼拜)[一二三四五六日天末])?[，,]$|^(?:同时|并且|而且)?(?:也|还|都|更)?(?:要|需要|可以|应该)?(?:作为|如果|要是|假如|除非|只要|只有|万一|要不是|虽然|尽管|因为|由于|为了|自从|除了|对于|相对于|相比于?|比起|关于|之所以|至于|说到|提到|讲到|谈到|说起|即使|就算|哪怕|无论|不管|不论|以|按照|根据|依照|随着|通过|经过)[^，,。！？]*[，,]$|^\p{Script=Han}{1,4}再(?:美|好|多|大|忙|累|难|贵|远|冷|热|好看|漂亮|喜欢|辛苦)[，,]$|^每(?:年|到|逢)[^，,。！？]{0,4}[，,]$|^每当[^，,。！？]{1,16}[，,]$|^[^，,。！？]{1,12}来说[，,]$|^每(?:天|周|月)(?:早上|晚上|中午|下午)?[，,]$|^(?:是不是|是否|难道|会不会|为什么|为何|怎么会)[^，,。！？]*[，,]$|^[^，,。！？]{1,10}(?:尤其是|特别是)[^，,。！？]{1,10}[，,]$|[了过](?:一|几)(?:道|个|本|部|首|只|家|位|种|款|件|座|条)[^，,。！？]{0,8}[，,]$/u,
    matches: [
      '除非医生说没事，',
      // _check_ "我说相对于公立博物馆来说。" alone compared nothing (kdconv/143 of seed 3017's reading).
      '相对于公立博物馆来说，',
      '对我来说，',
      // "我说梅兰芳先生1961年逝世前。" alone says nothing of what he did then.
      '梅兰芳先生1961年逝世前，',
      // Its verb in the next clause ("…来衡量新的工作机会是否合适"): "也要根据自己的实际情况。" alone says nothing.
      '同时也要根据自己的实际情况，',
      // What was introduced goes with the next clause, its name or what it was like: "毛血旺，" alone names nothing.
      '今天我还学了一道新的菜，',
      '在养老院工作的时候，',
      // "我说在购买新衣服时。" alone: what one weighs then, the next clause (a question) says.
      '在购买新衣服时，',
      // "带着儿子开始了流浪生活。" and "在坚持不懈的努力和帮助下。" alone: whose life, what happened then, the next clause says.
      '克里斯·加纳在失去工作和住所后，',
      '在坚持不懈的努力和帮助下，',
      '每年春天，',
      '每当听到优美的旋律，',
      // A subject with its example, before what it does: alone, "年轻人尤其是文艺青年。" says nothing.
      '年轻人尤其是文艺青年，',
      '下班以后，',
      '今天（5月5日），',
      '今天（5月3日）是星期天，',
      '作为清代规模最大的一座王府，',
      '因为下雨，',
      '之所以叫做“蜂巢”，',
      '说到三里屯，',
      '就算考砸了，',
      '景色再美，',
      '以我当前的存在状态，',
      '通过这次旅行，',
      '是不是我太胖了，',
    ],
    rejects: [
      '在养老院工作。',
      '在家，',
      '我在家中。',
      '我再想想，',
      '以后再说吧，我先走了',
      '因为下雨。',
      '作为朋友我支持你。',
      '每天都很开心，',
      '同时，',
    ],
  } satisfies PatternRule,
  amount: {
    why: 'what a bare number, date or amount is made of ("40元", "2小时 - 4小时"): nothing else left, it leans back',
    pattern:
      /[\d\s\p{P}\p{S}年月日号点时分秒元块角岁个次层楼米天周小时分钟公里万千百零一二三四五六七八九十两半几上下午晚早]/gu,
    matches: ['40元', '2小时'],
    rejects: ['门票', '北京'],
  } satisfies PatternRule,
  causeAfter: {
    why: 'a cause said after its effect leans on it; one glued before its clause ("因为下雨，…") does not',
    pattern: /^(?:因为|由于)[^，,]*$/u,
    matches: ['因为她也弄坏了我的城堡'],
    rejects: ['因为下雨，我们没去', '我们没去'],
  } satisfies PatternRule,
  reports: {
    why: 'a later clause of a stage\'s line that reports another speaker\'s words ("你说…", "小林问…"): they speak from there on (read.ts prose)',
    pattern: new RegExp(`^((?:(?!${worryFrame.pattern.source})[^，。！？、：\\s]){1,8}?)(?:说|问起|问)`, 'u'),
    matches: ['你说下周一下午', '小林问它叫什么'],
    // A worry reported ("你担心妈妈说…") is the worrier's: "你担心妈妈" is nobody who speaks.
    rejects: ['每个人要上台演讲3分钟', '你担心妈妈说你的猫团团死了'],
  } satisfies PatternRule,
  kindOf: {
    why: 'an apposition that only qualifies the clause before it ("24色的那种")',
    pattern: /(?:的)?(?:那种|这种|那个|这个|那样|这样)[。！…]*$/u,
    matches: ['24色的那种', '就是这样。'],
    rejects: ['24色的彩笔'],
  } satisfies PatternRule,
};
