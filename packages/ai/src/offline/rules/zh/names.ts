import type { PatternRule } from '../types.js';

// The Chinese pack's facts and names (offline scoring.ts chineseKeys, chineseNames): what a statement tells that
// weighs most, a date, a number, a title, a place or a person, and what only looks like one.

export const factsAndNames = {
  facts: [
    {
      why: 'digits with their unit are facts: dates, times, prices, phone numbers, addresses',
      pattern:
        /\d+(?:[.:：\-~～/]\d+)*\s*(?:[年月日号点时分秒元块角岁个次层楼米天周期位种]|小时|分钟|公里|平米|平方米|万|千|百|%)?/g,
      matches: ['门票40元', '8:30开门'],
      rejects: ['门票很贵'],
    },
    {
      why: 'Chinese numerals with a unit are facts; not "一个" / "一次" alone (an article: "一个陌生的女孩子"), nor "第一次" (an ordinal), nor "一点" for "a little" (one o\'clock is 一点钟, 一点半)',
      pattern:
        /(?<![第零一二三四五六七八九十两百千万几半])(?:[零二三四五六七八九十两百千万几半][零一二三四五六七八九十两百千万几半]*|一[零一二三四五六七八九十两百千万几半]+|一(?!个(?!月)|次|点(?![钟半多])))(?:年|月|日|号|点|岁|个月|个|元|块|次|天|周|小时|分钟|层|米|公里|万|星期)/g,
      matches: ['陪了你十二年', '每个月大概要三百块', '等了一个月', '去过三次', '一点半出发'],
      rejects: [
        '一起去',
        '十分喜欢',
        '一个陌生的女孩子',
        '第一次来北京',
        '去了一次',
        '给自己一点时间',
        '有一点难过',
      ],
    },
    {
      why: 'times and dates in words are facts',
      pattern:
        /今天|明天|昨天|后天|前天|今年|明年|去年|前年|上午|下午|晚上|早上|中午|傍晚|凌晨|周末|下周|上周|本周|这周|下个月|上个月|星期[一二三四五六日天]|周[一二三四五六日天]|礼拜[一二三四五六日天]|春节|国庆|中秋|元旦|端午|清明|旺季|淡季|春天|夏天|秋天|冬天|全天|寒假|暑假|生日/g,
      matches: ['这周末我去爬山。', '下周三去上海'],
      rejects: ['我去爬山。'],
    },
    {
      why: 'Latin words in Chinese text are facts: brands, names, English titles',
      pattern: /[A-Za-z][A-Za-z'-]+/g,
      matches: ['我在用iPhone', 'AI伴侣'],
      rejects: ['我在用手机', 'A'],
    },
  ] satisfies PatternRule[],
  names: [
    {
      why: 'quoted titles and names are names',
      pattern: /《[^》]{1,20}》|「[^」]{1,20}」|“[^”]{1,12}”/g,
      matches: ['我看了《我要复仇》', '它叫“豆豆”'],
      rejects: ['我看了电影'],
    },
    {
      why: 'who or what is called so is a name: 它叫豆豆, 名叫小明',
      pattern: /(?<=叫|名叫|名字是|名字叫|称为)\p{Script=Han}{2,3}/gu,
      matches: ['主人说它叫豆豆', '名叫小明'],
      rejects: ['它很可爱'],
    },
    {
      why: 'whose a concert, a song or a book is: a singer or an author ("去看了周杰伦的演唱会"), not a friend\'s or ours',
      pattern:
        /(?<=[了听看读是和与跟、])(?!朋友|同学|老师|妈妈|爸爸|哥哥|姐姐|弟弟|妹妹|[我你他她]们|大家|别人|自己)(?:(?![了的是和与跟])\p{Script=Han}){2,3}(?=的(?:演唱会|新歌|歌曲|歌|专辑|电影|小说|作品|新书|书|画展))/gu,
      matches: ['我去看了周杰伦的演唱会', '我还想去看张学友和邓紫棋的演唱会'],
      rejects: ['我去看了朋友的演唱会', '我们的演唱会很成功', '我读了自己的书'],
    },
    {
      why: 'places, by what their names end with; after a count word ("一片历史街区", "一家博物馆", "一座王府") a description, as a palace is ("两代的皇宫"), or a kind of street ("商业街"), or going out to one ("适合逛街"), or a count of them ("四大门")',
      pattern:
        /(?<![一两几][片条座个家所处间]\p{Script=Han}?)(?![一两几这那][片条座个家所处间]|(?<=[一两几这那])[片条座个家所处间]|的皇宫|(?:商业|步行|美食|小吃)街|\p{Script=Han}逛街|[一二三四五六七八九十两几]大)\p{Script=Han}{2}(?:省|市|区|县|镇|乡|村|路|街|巷|胡同|大街|大道|广场|公园|景区|大学|学院|中学|小学|医院|博物馆|美术馆|图书馆|剧院|大厦|中心|酒店|饭店|王府|府|宫|寺|庙|塔|楼|桥|(?<![开关出进])门(?!票)|园|坛|(?:山|湖|海|河|江|潭|岛)(?![景边面水畔岸鲜顶])|屯|城|站|机场)/gu,
      // "它边上的天坛": a name of one character before its ending is read with the one before it ("的天坛").
      matches: ['我去了恭王府', '地址是东直门南大街14号', '可以到它边上的天坛看看'],
      // A ticket (门票) or opening time (开门) is no gate's name.
      rejects: [
        '我去散步了',
        '我说无需门票的',
        '这里几点开门',
        '北京著名的一片历史街区',
        '我去了一家博物馆',
        '是清代规模最大的一座王府。',
        '作为明、清两代的皇宫，古老中国的标志和象征。',
        '自古就是北京最著名的商业街。',
        '还有各地的小吃汇集，适合逛街购物、享用美食。',
        '四大门开门：旺季（4月1日-10月31日）6:00-22:00，',
        '可以坐船欣赏湖景',
      ],
    },
  ] satisfies PatternRule[],
};
