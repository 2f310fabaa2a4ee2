import { describe, expect, it } from 'vitest';
import { Together } from './together.js';

/** A write that finishes when the test says so, recording what each call carried. */
function controlledWrites() {
  const calls: { key: string; items: number[]; finish: (error?: Error) => void }[] = [];
  const write = (key: string, items: number[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ key, items: [...items], finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { calls, write };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Together', () => {
  it('writes at once when nothing is in flight, and the items that came meanwhile in one write after it', async () => {
    const { calls, write } = controlledWrites();
    const together = new Together(write);
    const done: number[] = [];
    const first = together.add('run', 1).then(() => done.push(1));
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => together.add('run', n).then(() => done.push(n)));
    await tick();
    // Nothing more is sent while the first write is in flight, and nobody is told it is written.
    expect(calls).toHaveLength(1);
    expect(done).toEqual([]);
    calls[0]!.finish();
    await first;
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    expect(done).toEqual([1]);
    calls[1]!.finish();
    await Promise.all(later);
    expect(done).toEqual([1, 2, 3, 4]);
  });

  it('keeps keys apart: a write of one run does not wait for another run', async () => {
    const { calls, write } = controlledWrites();
    const together = new Together(write);
    void together.add('a', 1);
    void together.add('b', 2);
    await tick();
    expect(calls.map((c) => [c.key, c.items])).toEqual([
      ['a', [1]],
      ['b', [2]],
    ]);
  });

  it('gives each item of a failed write its error, and the next group is written all the same', async () => {
    const { calls, write } = controlledWrites();
    const together = new Together(write);
    const first = together.add('run', 1);
    await tick();
    const second = [together.add('run', 2), together.add('run', 3)];
    calls[0]!.finish(new Error('MongoDB away'));
    await expect(first).rejects.toThrow('MongoDB away');
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    calls[1]!.finish(new Error('still away'));
    for (const p of second) await expect(p).rejects.toThrow('still away');
    // Once nothing is in flight, the next item is written at once, alone.
    const third = together.add('run', 4);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4]]);
    calls[2]!.finish();
    await third;
  });
});
