import type { Language } from '@memfade/core';
import { RULES } from './rules/index.js';
import { chineseNames } from './scoring.js';
import type { Clause } from './segment.js';
import type { Voice } from './voice.js';

/**
 * What a conversation is about, named (docs/design.md §11: the topic entity lost is a defect): the thing its opening
 * asks about ("知道保利剧院吗？", "Have you seen Inception?"), or a title or place named from its first quarter on and often.
 * V1 opens with a line saying so, V2 unless its first sentence names it; one about nothing in particular gets none.
 */

const { zh, en } = RULES;

/** What opens a topic name without being it: "一下", an article ("any photography" keeps its "a"). */
const TOPIC_LEAD = new RegExp(`^(?:${zh.topicLead.pattern.source}|${en.topicLead.pattern.source})`, 'iu');
const QUOTED = /《([^》]{1,20})》|“([^”]{2,20})”|"([A-Z][^"]{1,40})"/gu;

/** How many opening clauses may hold the question that names the topic. */
const OPENING_CLAUSES = 3;
/** A title or place becomes the topic when it is named this often. */
const MENTIONS = 3;

const clean = (text: string) =>
  text
    .trim()
    // An article is a word of its own: "any photography techniques" is no "ny photography techniques".
    .replace(TOPIC_LEAD, '')
    // "社稷坛这个景点在哪", "烟袋斜街这个景点你还记得": the name, not what is asked of it.
    .replace(zh.askedOfName.pattern, '')
    .replace(zh.nameTail.pattern, '')
    // Marks around it go ("你看过“已黑”吗": 已黑); topicOf puts a quote's back as said, never half of them.
    .replace(/^“|[\s'"“”]+$/gu, '');

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** The conversation's topic entity, or undefined when it has none worth naming. */
export function topicOf(clauses: Clause[], language: Language): string | undefined {
  const spoken = clauses.filter((c) => !c.section);
  const all = spoken.map((c) => c.text).join('\n');
  // A name said only in “…” keeps its marks: to the faithfulness check (core) a quote is one word.
  const unquoted = all.replace(/《[^》]*》|“[^”]*”/gu, ' ');
  const asSaid = (name: string) =>
    unquoted.includes(name) || !all.includes(`“${name}”`) ? name : `“${name}”`;
  for (const clause of spoken.slice(0, OPENING_CLAUSES)) {
    const asked = RULES[language].opening.map((rule) => clause.text.match(rule.pattern)?.[1]).find(Boolean);
    const name = asked && clean(asked);
    if (name && name.length >= 2 && !RULES[language].notATopic.pattern.test(name)) return asSaid(name);
  }
  const candidates = new Map<string, number>();
  for (const m of all.matchAll(QUOTED)) {
    const name = m[1] ?? m[2] ?? m[3]!;
    candidates.set(m[1] ? `《${name}》` : name, occurrences(all, name));
  }
  // Never a name said only inside a longer quote; a title counts as named so (生日 is no 《生日》).
  const sayable = (name: string) => name.startsWith('《') || unquoted.includes(name);
  if (language === 'zh')
    for (const name of chineseNames(all)) if (sayable(name)) candidates.set(name, occurrences(all, name));
  // A quoted remark ("我明天不来了", "I won't come") is no topic: its 我 is its speaker's.
  const remark = (name: string) =>
    !name.startsWith('《') && /[我你他她]|\b(?:I|you|he|she|we)\b/iu.test(name);
  // Named often but first late, it is where the talk went, not what it was about.
  const early = (name: string) => all.indexOf(name.replace(/^《|》$/gu, '')) <= all.length / 4;
  const best = [...candidates]
    .filter(([name, n]) => n >= MENTIONS && !remark(name) && early(name))
    .sort((a, b) => b[1] - a[1])[0];
  return best && (best[0].startsWith('《') ? best[0] : asSaid(best[0]));
}

/** The line that names the topic: "我们聊到了保利剧院。", "You and Mia talked about Inception." */
export function topicLine(topic: string, voice: Voice, language: Language, named: string[]): string {
  const refs = [voice.user.ref, voice.companion.ref];
  const pair = named.length >= 2 ? named : refs.some((r) => r.person === 3) && refs.map((r) => r.name);
  if (language === 'zh') return `${pair ? `${pair[0]}和${pair[1]}` : '我们'}聊到了${topic}。`;
  const who = pair ? `${pair[0]!.charAt(0).toUpperCase()}${pair[0]!.slice(1)} and ${pair[1]}` : 'We';
  return `${who} talked about ${topic}.`;
}

/** Reads back the topic a stage's text names in its topic line (V2 reads V1's). */
export const topicIn = (line: string): string | undefined =>
  line.match(/^(?:.{1,30}?)聊到了(.+)。$/u)?.[1] ?? line.match(/^(?:.{1,40}?) talked about (.+)\.$/)?.[1];
