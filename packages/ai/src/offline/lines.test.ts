import { describe, expect, it } from 'vitest';
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
});
