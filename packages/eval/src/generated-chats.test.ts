import { describe, expect, it } from 'vitest';
import { SHAPES } from './fuzz/chats.js';
import { describeFailure, fuzzChats, throughPipeline } from './fuzz/run.js';

/**
 * Chats nobody wrote as a test case (fuzz/: `pnpm fuzz` draws more), through the worker's own pipeline
 * with the offline compressor: every one must reach V2 with a core memory. A stage the gate refuses,
 * or an empty one, is refused again every night, so the memory is never compressed. Runs of it found
 * "你收到，不知道…", "Juno said…" for the user's lines, empty V2s (twentieth round), a user called
 * 欧阳娜娜 read as "not English", labels 我 / 明天, bilingual chats, a junk word, a gate that tried three
 * turns of a long chat (docs/eval/README.md, twenty-first round).
 */

/** Slow (192 chats, 24 of them 150-300 turns long): about 5 s here. */
const SLOW = 120_000;

describe('chats nobody wrote as a test case, through the pipeline', () => {
  it(
    `brings every chat of every shape (${SHAPES.join(', ')}) to a core memory: never refused, never empty`,
    async () => {
      const report = await fuzzChats(20_261_130, 12);
      expect(report.chats).toBe(SHAPES.length * 2 * 12);
      expect(report.failures.map(describeFailure)).toEqual([]);
    },
    SLOW,
  );

  it('brings the chats a fuzz run once found to a core memory', async () => {
    const found = [
      // V1 was "": the "..." its only statement short enough.
      {
        raw: [
          '... nice weather today I went to the park today. 😊 ?? 😊 - buy milk',
          '- call mom Mom says we visit grandma this weekend.',
        ].join('\n'),
        card: {},
      },
    ];
    for (const chat of found) expect(await throughPipeline(chat), JSON.stringify(chat.raw)).toBeUndefined();
  });
});
