import type { PatternRule } from '../types.js';

// The Chinese pack's people: the speaker's own 我 (what rewriting it must leave as said: a title, 我们, another
// person named), the words for a person, and the 他 / 她 that means one, as the English pack's people.ts.

/** The words for the user's people (a pet's are kin's alone): one list for kin and someone. */
const PEOPLE =
  '儿子|女儿|孩子|宝宝|妈妈|母亲|爸爸|父亲|老公|老婆|丈夫|妻子|男朋友|女朋友|哥哥|姐姐|弟弟|妹妹|奶奶|爷爷|外婆|外公|姥姥|姥爷|室友|同学|闺蜜|老爸|老妈|(?<=[我你他她咱])(?:爸|妈|哥|姐)';

export const people = {
  selfIntro: {
    why: 'a name the speaker introduces themself with ("我叫林小雨") is theirs',
    pattern: /我叫|我是|我的名字是|我名叫/,
    piece: true,
    matches: ['我叫', '我的名字是'],
    rejects: ['我', '他叫'],
  } satisfies PatternRule,
  introducedAs: {
    why: '"我叫刘琳" said by 刘琳 is no fact about anyone else: "刘琳叫刘琳" would say it twice',
    pattern: /我(?:叫|是|名叫|的名字是)/,
    piece: true,
    matches: ['我叫', '我是'],
    rejects: ['我们是', '你叫'],
  } satisfies PatternRule,
  bareTitle: {
    why:
      'a song\'s or a film\'s title said without 《》 ("唱了一首月亮代表我的心", "一首歌叫我的未来不是梦", "那部新上映的' +
      "我和我的父辈\": a 我 straight after a count word and its 的 is no one's): its 我 is the title's, kept as said " +
      '("月亮代表你的心" is no song); "一首我最喜欢的歌", "一部我很喜欢的电影", "一首歌给我妈听" name none',
    pattern:
      /(?:(?<=(?:唱|听|弹|放|点|写)了?一首|首歌(?:叫做?|名叫)|歌名(?:叫做?|是))|(?<=[部首](?:[^，。！？、；,!?\s我你]{0,8}的)?)(?=[我你]))(?![^，。！？、；,!?]*(?:歌曲?|曲子?|诗|电影|片子?|剧|书)(?:[给送为]|[，。！？、；,!?]|$))[^，。！？、；,!?\s]{2,}/u,
    matches: [
      '你表白的时候就唱了一首月亮代表我的心',
      '我最喜欢的一首歌叫我的未来不是梦。',
      // A written film chat: "带她去看那部新上映的你和你的父辈" rewrote a film.
      '我打算下周带她去看那部新上映的我和我的父辈。',
    ],
    rejects: [
      '我唱了一首歌给我妈听',
      '她唱了一首我最喜欢的歌。',
      '我听了一首很好听的曲子',
      '这首歌是我写的',
      '昨天看了一部我很喜欢的电影。',
      '这部剧我看过三遍。',
    ],
  } satisfies PatternRule,
  own: {
    why: "the speaker's own 我, not 我们 / 我俩 (as said), 我国 / 我校 (an institution's), 自我 / 忘我 (a word)",
    pattern: /(?<![自忘])我(?![们俩国校市省司院厂军方])/gu,
    matches: ['我去公园', '给我'],
    rejects: ['我们去公园', '我俩', '自我介绍', '我校'],
  } satisfies PatternRule,
  subjectDropAfter: {
    why: 'where a clause starts a subject named again can go ("…，可以去参加", "郑思雨觉得在写作上…"): Chinese drops it',
    pattern:
      /(?:^|[，,、；;：:）)]|其实|也|还|就|都|如果|要是|因为|所以|而且|但是|但|可是|不过|最近|现在|一直|已经|经常|通常|想|觉得|感觉|认为|希望|担心|怕|发现|知道|相信|感到)$/u,
    matches: ['刘琳说其实', '我们去了公园，', '郑思雨觉得', '陆琳感觉'],
    rejects: ['帮助', '刘琳的'],
  } satisfies PatternRule,
  anotherPerson: {
    why: 'someone else named in between (我, 你, 您, 他, 她; not 其他, 吉他, 他人): the name is said again',
    pattern: /[我你您]|(?<![其吉])[他她](?![们人])/u,
    matches: ['给他的', '你的建议'],
    rejects: ['其他的', '弹吉他', '他们'],
  } satisfies PatternRule,
  kin: {
    why: 'the user\'s own people and pets: "我儿子考上了" is an event of theirs as "我考上了" is',
    pattern: new RegExp(`(?:${PEOPLE}|狗|猫)`),
    piece: true,
    matches: ['儿子', '外婆'],
    rejects: ['门票'],
  } satisfies PatternRule,
  someone: {
    why: 'a word for a person ("我的好朋友小雨", "妈妈"): whom a 他 / 她 after it names (antecedents.ts)',
    pattern: new RegExp(`${PEOPLE}|朋友|老师|同桌|同事|医生|邻居|男生|女生|男孩|女孩`, 'u'),
    matches: [
      '可是我的好朋友小雨只考了60分，',
      '妈妈',
      '我爸知道了肯定会骂我',
      '老妈',
      '有一个叫李想的男生坐到我旁边，',
    ],
    rejects: ['她哭了。', '我想安慰她。', '爸气', '他打算怎么改进'],
  } satisfies PatternRule,
  namedPerson: {
    why:
      'a person named by name before what they do on screen or stage, or their birth ("张国荣演的程蝶衣", "陈凯歌导演", ' +
      '"张国荣1956年出生"): whom a 他 / 她 after it names, as 妈妈 is',
    pattern:
      /[张王李赵刘陈杨黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文葛巩舒章][\p{Script=Han}]{1,2}(?=(?:饰|主|导|执导|出)?演(?![出讲示变])|导演|唱(?![歌K])|(?:\d{4}年)?出生|去世)/u,
    matches: [
      '张国荣演的程蝶衣太让人心疼了。',
      '张国荣1956年出生。',
      '徐峥演的程勇，',
      '当然是陈凯歌导演的。',
    ],
    rejects: ['王府井演出很多。', '周末唱歌去。', '妈妈'],
  } satisfies PatternRule,
  heOrShe: {
    why: 'a 他 / 她 meaning one person (not 他们, 他家: a place pointed at, 他人: others): whom a statement before named',
    pattern: /[他她](?![们家人])/u,
    matches: ['我想安慰她。', '她哭了'],
    rejects: ['他们都来了', '你知道他家的地址吗', '不要在意他人的看法'],
  } satisfies PatternRule,
};
