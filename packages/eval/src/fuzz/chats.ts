import type { Language, RoleCard, Turn } from '@memfade/core';
import { CARDS, GARNISHES, LABELS, PIECES } from './words.js';

/**
 * Chats nobody wrote as a test case, drawn from a seed (words.ts has what they are made of): each
 * shape is a way a product's memory has come in and been refused or written empty every night.
 */

export type Shape =
  | 'turns'
  | 'bilingual'
  | 'string'
  | 'long'
  | 'hugeTurn'
  | 'junkWord'
  | 'repeats'
  | 'blankTurns'
  | 'garnished';
export const SHAPES: Shape[] = [
  'turns',
  'bilingual',
  'string',
  'long',
  'hugeTurn',
  'junkWord',
  'repeats',
  'blankTurns',
  'garnished',
];

export interface Chat {
  shape: Shape;
  language: Language;
  raw: Turn[] | string;
  card: Partial<RoleCard>;
}

export function drawChat(random: () => number, shape: Shape, language: Language): Chat {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const { openings, bodies, endings, companion, loose } = PIECES[language];
  const gap = language === 'zh' ? '' : ' ';
  const said = () => pick(openings) + pick(bodies) + pick(endings);
  const [userLabel, companionLabel] = pick(LABELS[language]);
  const card = { ...pick(CARDS[language]) };
  const turns = (n: number, text: (i: number) => string): Turn[] =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? userLabel : companionLabel, text: text(i) }));
  const talk = (i: number) => (i % 2 === 0 ? said() + (random() < 0.5 ? gap + said() : '') : pick(companion));
  const raw = ((): Turn[] | string => {
    switch (shape) {
      case 'turns':
        return turns(4 + Math.floor(random() * 6), talk);
      case 'bilingual': {
        // The user in one language, the companion in the other; the card's language either.
        const other = PIECES[language === 'zh' ? 'en' : 'zh'];
        const said = () => pick(other.bodies) + pick(other.endings);
        card.language = random() < 0.5 ? 'zh' : 'en';
        return turns(4 + Math.floor(random() * 6), (i) => (i % 2 === 0 ? talk(i) : said()));
      }
      case 'string':
        return Array.from({ length: 6 + Math.floor(random() * 9) }, () => pick(loose)).join('') + said();
      case 'long':
        return turns(150 + Math.floor(random() * 150), talk);
      case 'hugeTurn':
        return [...turns(1, () => Array.from({ length: 200 }, said).join(gap)), ...turns(2, talk).slice(1)];
      case 'junkWord':
        return turns(3, (i) => (i === 0 ? `${said()} ${'a'.repeat(3000)} ${said()}` : talk(i)));
      case 'repeats': {
        const same = said();
        return turns(30, () => same);
      }
      case 'blankTurns':
        return turns(10, (i) => (i % 3 === 0 ? '   ' : talk(i)));
      case 'garnished': {
        // What products and models wrap words in: markdown, tags, invisible characters, an injection.
        const garnish = pick(GARNISHES);
        return turns(4 + Math.floor(random() * 6), (i) =>
          random() < 0.5 ? garnish(talk(i), random) : talk(i),
        );
      }
    }
  })();
  return { shape, language, raw, card };
}
