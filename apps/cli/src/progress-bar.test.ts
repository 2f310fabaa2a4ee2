import { describe, expect, it } from 'vitest';
import { progressBar } from './progress-bar.js';

/** A stream off a terminal that keeps what was written. */
function captured() {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

describe('the progress bar', () => {
  it('shows done past the total as full instead of crashing (jobs can end before the total is written)', () => {
    const { stream, lines } = captured();
    const bar = progressBar(stream);
    expect(() => bar.update({ done: 23, total: 20, failed: 2 })).not.toThrow();
    expect(lines.at(-1)).toContain(`[${'#'.repeat(30)}] 23/20 100%`);
  });

  it('counts a finished run with nothing in it as done', () => {
    const { stream, lines } = captured();
    progressBar(stream).update({ done: 0, total: 0, failed: 0, finished: true });
    expect(lines.at(-1)).toContain(`[${'#'.repeat(30)}] 0/0 100%`);
  });
});
