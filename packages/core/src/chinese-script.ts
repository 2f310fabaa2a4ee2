import { escapeRegExp } from './text.js';

/**
 * Simplified and traditional Chinese characters (docs/design.md §4, "the output keeps the memory's
 * language"): a memory written in traditional characters (Taiwan, Hong Kong) stays in them. The
 * pairs below are common characters whose two forms differ and neither form stands for another
 * word in the other script (后 and 里 are left out: 皇后, 公里 are traditional too). They tell the
 * script of a text apart, and convert the words memfade itself writes (a speaker marker, an
 * emotion's name), never a speaker's words.
 */
const PAIRS =
  '们們这這说說个個来來时時会會对對没沒为為国國问問现現过過还還发發开開关關长長见見话話点點觉覺样樣' +
  '学學欢歡谢謝妈媽爷爺给給让讓请請听聽难難爱愛东東车車书書买買卖賣飞飛电電场場儿兒气氣钱錢饭飯岁歲' +
  '两兩帮幫边邊经經进進远遠运運动動吗嗎么麼认認识識应應该該题題实實记記忆憶种種机機脑腦医醫师師愿願' +
  '当當业業热熱头頭乐樂节節鸡雞鱼魚鸟鳥马馬猫貓习習写寫读讀语語词詞诉訴谈談讲講论論试試课課虑慮担擔' +
  '忧憂恼惱烦煩惊驚讶訝伤傷紧緊张張兴興奋奮满滿骄驕愤憤惧懼怀懷独獨谁誰总總结結离離馆館图圖园園办辦' +
  '处處备備华華亲親剧劇视視报報纸紙画畫与與从從体體单單号號网網钟鐘块塊阳陽风風灯燈楼樓门門间間闹鬧' +
  '队隊级級组組练練线線红紅绿綠蓝藍黄黃颜顏饿餓药藥疗療设設计計议議决決变變孙孫农農产產员員导導领領' +
  '刚剛悦悅恐恐悲悲';

const TO_TRADITIONAL = new Map<string, string>();
const TO_SIMPLIFIED = new Map<string, string>();
/** Each character's form by its code unit, for the counting pass (1 simplified, 2 traditional). */
const FORM = new Uint8Array(0x10000);
for (let i = 0; i < PAIRS.length; i += 2) {
  const [simplified, traditional] = [PAIRS[i]!, PAIRS[i + 1]!];
  if (simplified === traditional) continue;
  TO_TRADITIONAL.set(simplified, traditional);
  TO_SIMPLIFIED.set(traditional, simplified);
  FORM[simplified.charCodeAt(0)] = 1;
  FORM[traditional.charCodeAt(0)] = 2;
}

export type ChineseScript = 'simplified' | 'traditional' | 'unclear';

/**
 * The script whose forms lead clearly (three at least, and `lead` times the other's: by default
 * twice, so a traditional chat quoting a simplified name stays traditional); `unclear` for text
 * with too few of either, or both.
 */
export function chineseScript(text: string, lead = 2): ChineseScript {
  let simplified = 0;
  let traditional = 0;
  // By code unit: every paired character is in the BMP, so a surrogate half is never one.
  for (let i = 0; i < text.length; i++) {
    const form = FORM[text.charCodeAt(i)];
    if (form === 1) simplified++;
    else if (form === 2) traditional++;
  }
  if (traditional >= 3 && traditional >= lead * simplified) return 'traditional';
  return simplified >= 3 && simplified >= lead * traditional ? 'simplified' : 'unclear';
}

/** memfade's own words in traditional characters (the pairs above; any other character as it is). */
export const toTraditional = (text: string): string => convert(text, TO_TRADITIONAL);

/** Text read as simplified (a lexicon of simplified words reading a traditional chat). */
export const toSimplified = (text: string): string => convert(text, TO_SIMPLIFIED);

function convert(text: string, map: Map<string, string>): string {
  let out = '';
  for (const c of text) out += map.get(c) ?? c;
  return out;
}

/**
 * The words a Chinese stage says who said it with ("你说", "小满问起"; the topic line's "我们聊到了"),
 * in simplified characters; the faithfulness check reads them in both scripts.
 */
export const REPORTING_ZH = [
  '说',
  '问起',
  '问',
  '告诉',
  '提到',
  '担心',
  '想知道',
  '不知道',
  '不明白',
  '聊到了',
];

/**
 * A stage's speaker markers (`names`, 你, 我, 我们 before a reporting word, where a speaker's words
 * may start) written in `script`, the words around them as they are: the offline compressor writes
 * its markers in a traditional memory's characters, and reads them back in its own.
 */
export function markersIn(text: string, names: string[], script: 'simplified' | 'traditional'): string {
  const map = script === 'traditional' ? TO_TRADITIONAL : TO_SIMPLIFIED;
  const from = script === 'traditional' ? (w: string) => w : toTraditional;
  const who = [...names.filter((n) => n.trim()).map(escapeRegExp), from('我们'), '你', '我'].join('|');
  const marker = new RegExp(
    `(^|[\\n.!?…。！？,，;；:：、“”"（(）)\\s])(${who})(${REPORTING_ZH.map(from).join('|')})`,
    'gu',
  );
  return text.replace(marker, (_, before: string, person: string, verb: string) =>
    [before, person, verb]
      .map((part, i) => (i === 0 || names.includes(part) ? part : convert(part, map)))
      .join(''),
  );
}

/** A pattern of simplified words that reads traditional text too (the offline packs' emotion words). */
export function bothScripts(pattern: RegExp, flags = pattern.flags): RegExp {
  const traditional = toTraditional(pattern.source);
  return traditional === pattern.source
    ? new RegExp(pattern.source, flags)
    : new RegExp(`(?:${pattern.source})|(?:${traditional})`, flags);
}
