import {
  chineseScript,
  escapeRegExp,
  type Language,
  type RoleCard,
  toSimplified,
  toTraditional,
} from '@memfade/core';

/**
 * A memory written in traditional characters gets its stages in them (docs/design.md §4): what
 * this compressor writes itself is converted (who said it, 你说 → 你說; the topic line's 我们; an
 * emotion's name), and what the speakers said is theirs already, never touched. The pack's words
 * are simplified; a pattern reading a traditional chat is given both forms (`bothScripts`).
 */
export function inMemoryScript<T>(fields: T, source: string, language: Language, card: RoleCard): T {
  if (!isTraditional(source, language)) return fields;
  const marker = markerPattern(card, 'simplified');
  const convert = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string')
      return key === 'dominantEmotion'
        ? toTraditional(value)
        : value.replace(
            marker,
            (_, before: string, who: string, verb: string) =>
              `${before}${who === '我们' ? '我們' : who}${toTraditional(verb)}`,
          );
    if (Array.isArray(value)) return value.map((item) => convert(item));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, k)]));
    return value;
  };
  return convert(fields) as T;
}

/** A V1 this compressor wrote in traditional characters, its markers read as it reads its own (V2's input). */
export function markersInSimplified(text: string, language: Language, card: RoleCard): string {
  if (!isTraditional(text, language)) return text;
  return text.replace(
    markerPattern(card, 'traditional'),
    (_, before: string, who: string, verb: string) =>
      `${before}${who === '我們' ? '我们' : who}${toSimplified(verb)}`,
  );
}

const isTraditional = (text: string, language: Language) =>
  language === 'zh' && chineseScript(text) === 'traditional';

const VERBS = ['说', '问起', '问', '告诉', '提到', '担心', '想知道', '不知道', '不明白', '聊到了'];

/** The compressor's speaker markers where a speaker's words may start (core faithfulness.ts reads the same). */
function markerPattern(card: RoleCard, script: 'simplified' | 'traditional'): RegExp {
  const names = [card.name, card.userName].filter((n): n is string => !!n?.trim()).map(escapeRegExp);
  const we = script === 'simplified' ? '我们' : '我們';
  const verbs = script === 'simplified' ? VERBS : VERBS.map(toTraditional);
  return new RegExp(
    `(^|[\\n.!?…。！？,，;；:：、“”"（(）)\\s])(${[...names, we, '你', '我'].join('|')})(${verbs.join('|')})`,
    'gu',
  );
}

/** A pattern of the pack's simplified words that reads a traditional chat too. */
export function bothScripts(pattern: RegExp, flags = pattern.flags): RegExp {
  const traditional = toTraditional(pattern.source);
  return traditional === pattern.source
    ? new RegExp(pattern.source, flags)
    : new RegExp(`(?:${pattern.source})|(?:${traditional})`, flags);
}
