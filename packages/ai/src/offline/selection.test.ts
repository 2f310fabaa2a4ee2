import { measureLength } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { analyse, type Unit } from './scoring.js';
import { conversationClauses } from './segment.js';
import { type Selection, select } from './selection.js';
import { atoms } from './statements.js';

const units = (text: string) => analyse(atoms(conversationClauses(text), true), 'en');
const how = (density: number): Selection => ({
  cost: (u: Unit) => measureLength(u.text) + 1,
  density,
  render: (chosen) => chosen.map((u) => u.text).join(' '),
});

describe('select', () => {
  const long =
    'user: I adopted a puppy named Max on 3 March in Boston with my sister Anna and her husband Tom at 9 am.';
  const short = 'user: I moved to Paris in 2020.';

  it('keeps a statement said again word for word once, even under the minimum', () => {
    const said = `user: ${'I went to the park. '.repeat(20)}`;
    const chosen = select(units(said), { min: 200, max: 300 }, how(0.5));
    expect(chosen.map((u) => u.text)).toEqual(['I went to the park.']);
  });

  it('keeps what fits, most telling first', () => {
    const chosen = select(units(`${long}\n${short}`), { min: 0, max: 40 }, how(0.5));
    expect(chosen.map((u) => u.text)).toEqual(['I moved to Paris in 2020.']);
  });

  it('keeps the statement that overruns a range too small for any the least, not the most telling', () => {
    const all = units(`${long}\n${short}`);
    // Both overrun 20 characters; ranked by information per length ** 0.5 the long one wins.
    for (const density of [0.5, 1]) {
      const chosen = select(all, { min: 10, max: 20 }, how(density));
      expect(chosen.map((u) => u.text)).toEqual(['I moved to Paris in 2020.']);
    }
  });

  it('keeps a statement rather than an orphan or filler when nothing fits', () => {
    // In a stage's prose (no turn to lean on across lines) "It was Matt…" is an orphan: the most
    // telling for its length, it would read as a fragment alone.
    const text =
      'user: Thanks so much, really!\nuser: It was Matt, in Lyon in 2021.\nuser: Anna likes the big blue sea.';
    const all = analyse(atoms(conversationClauses(text), false), 'en');
    expect(all.map((u) => [u.filler, u.orphan])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
    const chosen = select(all, { min: 5, max: 10 }, how(0.5));
    expect(chosen.map((u) => u.text)).toEqual(['Anna likes the big blue sea.']);
  });
  it('takes a statement whose "it" names a thing it does not keep only after one that stands alone', () => {
    const text =
      'user: I found an old red bike in a garage.\nuser: I fixed it in 2 days in May.\nuser: I met Anna at the lake.';
    const all = units(text);
    const [bike, fixed, met] = all;
    fixed!.means = bike;
    // Room for one short statement: "I fixed it in 2 days in May." tells more than "I met Anna at the lake."
    // (a number and a month for a name), but alone it fixed nothing a reader knows.
    const chosen = select([fixed!, met!], { min: 0, max: 30 }, how(0.5));
    expect(chosen.map((u) => u.text)).toEqual(['I met Anna at the lake.']);
  });
});

describe('what a statement tells', () => {
  it('counts a name that is spoken of, not one that is only addressed', () => {
    const keys = (text: string) => units(`user: ${text}`).flatMap((u) => [...u.keys.keys()]);
    expect(keys('Thanks, Maria!')).not.toContain('maria');
    expect(keys('Awww, Mel, that is lovely.')).not.toContain('mel');
    expect(keys('Good morning Maria, the garden in Kyoto was lovely.')).not.toContain('maria');
    expect(keys('I met Maria in Kyoto, and we talked for hours.')).toEqual(
      expect.arrayContaining(['maria', 'kyoto']),
    );
    // A long text before the name is no greeting, however it ends.
    expect(keys(`${'We walked along the river for a long while. '.repeat(5)}Then Maria arrived.`)).toContain(
      'maria',
    );
  });
});
