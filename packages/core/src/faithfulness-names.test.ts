/**
 * The check reads a role card's names as names, whatever they are: a word ("Will", "Hope", "May": the
 * modal or the verb is no person), a role word ("Assistant"), an apostrophe ("O'Neil") or a full stop
 * inside ("Dr. Ava", "J.J."). On the code before, each made the gate refuse faithful stages (a third
 * to all of a set's memories never compressed), found by giving the shared sets' chats such cards.
 */
import { describe, expect, it } from 'vitest';
import { inventedSpans } from './faithfulness.js';
import { en } from './faithfulness-sources.js';

const chat = (companion: string, user: string) => ({
  ...en(
    [
      ['user', "I will try the new recipe tonight. I hope it works, I'm a bit nervous."],
      ['assistant', "I'm sure it will. I'll be here if you want to talk about it. I may even try it too."],
    ],
    [companion, user],
  ),
  userRole: user,
});

describe('names that are words, role words or carry marks', () => {
  it('a name that is also a word names its person only as written: "Will will try", "May may"', () => {
    const source = chat('May', 'Will');
    expect(
      inventedSpans('Will said Will will try the new recipe tonight. Will hopes it works.', source),
    ).toEqual([]);
    expect(
      inventedSpans(
        'May said May will be here if you want to talk about it. May may even try it too.',
        source,
      ),
    ).toEqual([]);
    // Still flagged: words nobody said, after the name or the modal.
    expect(inventedSpans("Will said Will will bake Will's famous cake.", source)).not.toEqual([]);
  });

  it('"Hope hopes" is Hope and a verb, not Hope and an "s"', () => {
    const source = chat('Sunny', 'Hope');
    expect(
      inventedSpans('Hope said Hope will try the new recipe tonight. Hope hopes it works.', source),
    ).toEqual([]);
  });

  it('a companion named "Assistant" is a speaker the stage may name', () => {
    const source = chat('Assistant', 'Emily');
    expect(
      inventedSpans('Assistant said Assistant will be here if you want to talk about it.', source),
    ).toEqual([]);
  });

  it('a name with an apostrophe is one word: "O\'Neil will try", "O\'Neil\'s"', () => {
    const source = chat('Juno', "O'Neil");
    expect(inventedSpans("O'Neil said O'Neil will try the new recipe tonight.", source)).toEqual([]);
    expect(inventedSpans("O'Neil said O'Neil's recipe is new.", source)).not.toEqual([]);
  });

  it('a full stop inside a name ends no sentence: "Dr. Ava said…", "J.J. said…"', () => {
    for (const name of ['Dr. Ava', 'J.J.']) {
      const source = chat(name, 'Emily');
      expect(
        inventedSpans(`${name} said ${name} will be here if you want to talk about it.`, source),
      ).toEqual([]);
      expect(inventedSpans(`${name} said ${name} will cook for you.`, source)).not.toEqual([]);
    }
  });
});
