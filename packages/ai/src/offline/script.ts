import { chineseScript, type Language, markersIn, type RoleCard, toTraditional } from '@memfade/core';

/**
 * A memory written in traditional characters gets its stages in them (docs/design.md §4): what this compressor writes
 * itself is converted (who said it, 你说 → 你說, core markersIn; an emotion's name), what the speakers said is theirs
 * already. The packs' words are simplified: a pattern reading a traditional chat gets both forms (core bothScripts).
 */
export function inMemoryScript<T>(fields: T, source: string, language: Language, card: RoleCard): T {
  if (!isTraditional(source, language)) return fields;
  const convert = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string')
      return key === 'dominantEmotion'
        ? toTraditional(value)
        : markersIn(value, namesOf(card), 'traditional');
    if (Array.isArray(value)) return value.map((item) => convert(item));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, k)]));
    return value;
  };
  return convert(fields) as T;
}

/** A V1 this compressor wrote in traditional characters, its markers as it reads its own (V2's input). */
export const markersInSimplified = (text: string, language: Language, card: RoleCard): string =>
  isTraditional(text, language) ? markersIn(text, namesOf(card), 'simplified') : text;

const isTraditional = (text: string, language: Language) =>
  language === 'zh' && chineseScript(text) === 'traditional';

const namesOf = (card: RoleCard) => [card.name, card.userName].filter((n): n is string => !!n);
