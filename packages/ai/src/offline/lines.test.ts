import { describe, expect, it } from 'vitest';
import { attributed } from './lines.js';
import { readConversation } from './read.js';

/** The Writer (lines.ts): kept clauses written as the memory's lines, each saying who speaks. */
describe('a line of the memory', () => {
  it('gives a later sentence whose "I" was left out its subject, as the first sentence gets it', () => {
    const text = [
      "Jon: Hey Gina! Hope you're doing great! Took a short trip last week to Rome.",
      'Gina: Wow!',
    ].join('\n');
    const reader = readConversation(text, 'en', { name: 'Gina', userName: 'Jon' }, false, ['Jon', 'Gina']);
    const jon = reader.clauses.filter((c) => c.speaker === 'Jon');
    const line = reader.writer.lines(jon).join(' ');
    expect(line).toContain('Jon took a short trip last week to Rome.');
    expect(line).not.toMatch(/(?:^|[.!?"] )Took/);
  });

  it('takes the capital off a common first word after "said", never off a name', () => {
    expect(attributed('Next Friday works.', 'Gina', 'en', new Set())).toBe('Gina said next Friday works.');
    expect(attributed('Recently Lucy has been busy.', 'Lucy', 'en', new Set(['Lucy']))).toBe(
      'Lucy said recently Lucy has been busy.',
    );
    expect(attributed('Paws & Claws is open.', 'Gina', 'en', new Set())).toBe(
      'Gina said Paws & Claws is open.',
    );
  });
});
