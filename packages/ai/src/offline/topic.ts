import type { Language } from '@memfade/core';
import { chineseNames } from './scoring.js';
import type { Clause } from './segment.js';
import type { Voice } from './voice.js';

/**
 * What a conversation is about, named (docs/design.md §11: the topic entity lost is a defect): the
 * thing its opening question asks about ("知道保利剧院吗？", "Have you seen Inception?"), or a
 * title or place it keeps coming back to. Both stages open with one line saying so, unless their
 * text names it already; a conversation about nothing in particular gets no such line.
 */

const ZH_OPENING = [
  // Not "不知道该怎么做": not knowing is no question about a thing.
  /(?<![不没])(?:知道|听说过|听过|了解|认识|看过|去过|玩过|读过|吃过|喜欢|聊聊|说说|介绍一下)(?:一下)?([^，。！？?,!\s]{2,20}?)(?:吗|么|呢|不|没|的事|？|\?|$)/u,
  // "你对北京自然博物馆有了解吗？", "关于大观园你知道多少？"
  /(?:对|关于)([^，。！？?,!\s]{2,20}?)(?:你)?(?:有|很|比较)?(?:了解|兴趣|研究|熟悉|知道)/u,
];
const EN_OPENING =
  /\b(?:do you know|have you (?:ever )?(?:heard of|seen|read|been to|watched|tried|played|listened to)|what do you think (?:of|about)|tell me about|let's talk about|talk about)\s+([^?.!,;]{2,40})/i;
const QUOTED = /《([^》]{1,20})》|“([^”]{2,20})”|"([A-Z][^"]{1,40})"/gu;

/** How many opening clauses may hold the question that names the topic. */
const OPENING_CLAUSES = 3;
/** A title or place becomes the topic when it is named this often. */
const MENTIONS = 3;

const clean = (text: string) =>
  text
    .trim()
    // An article is a word of its own: "any photography techniques" is no "ny photography techniques".
    .replace(/^(?:一下|下|的|(?:the|a|an)\s+)/iu, '')
    // "社稷坛这个景点在哪", "烟袋斜街这个景点你还记得": the name, not what is asked of it.
    .replace(/(?:这个|那个|这座|那座|这家|那家|这里|那里|在哪|在什么地方|你还记得|你记得).*$/u, '')
    .replace(/(?:这个|那个|这部|那部|这首|吗|呢|的)$/u, '')
    .replace(/[\s'"“”]+$/u, '');

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The conversation's topic entity, or undefined when it has none worth naming. */
export function topicOf(clauses: Clause[], language: Language): string | undefined {
  const spoken = clauses.filter((c) => !c.section);
  const all = spoken.map((c) => c.text).join('\n');
  for (const clause of spoken.slice(0, OPENING_CLAUSES)) {
    const m =
      language === 'zh'
        ? ZH_OPENING.map((pattern) => clause.text.match(pattern)).find((found) => found?.[1])
        : clause.text.match(EN_OPENING);
    const name = m?.[1] && clean(m[1]);
    if (
      name &&
      name.length >= 2 &&
      !/^(?:你|我|他|她|它|这|那|什么|怎|该|要不要|应该|如何|为什么)/u.test(name)
    )
      return name;
  }
  const candidates = new Map<string, number>();
  for (const m of all.matchAll(QUOTED)) {
    const name = m[1] ?? m[2] ?? m[3]!;
    candidates.set(m[1] ? `《${name}》` : name, occurrences(all, name));
  }
  if (language === 'zh') for (const name of chineseNames(all)) candidates.set(name, occurrences(all, name));
  const best = [...candidates].filter(([, n]) => n >= MENTIONS).sort((a, b) => b[1] - a[1])[0];
  return best?.[0];
}

/** The line that names the topic: "我们聊到了保利剧院。", "You and Mia talked about Inception." */
export function topicLine(topic: string, voice: Voice, language: Language, named: string[]): string {
  const pair =
    named.length >= 2
      ? [named[0]!, named[1]!]
      : voice.user.ref.person !== 3 && voice.companion.ref.person !== 3
        ? undefined
        : [voice.user.ref.name, voice.companion.ref.name];
  if (language === 'zh') return `${pair ? `${pair[0]}和${pair[1]}` : '我们'}聊到了${topic}。`;
  const who = pair ? `${pair[0]!.charAt(0).toUpperCase()}${pair[0]!.slice(1)} and ${pair[1]}` : 'We';
  return `${who} talked about ${topic}.`;
}

/** Reads back the topic a stage's text names in its topic line (V2 reads V1's). */
export function topicIn(line: string): string | undefined {
  return (
    line.match(/^(?:.{1,30}?)聊到了(.+)。$/u)?.[1] ?? line.match(/^(?:.{1,40}?) talked about (.+)\.$/)?.[1]
  );
}
