import { createCompressor } from '@memfade/ai';
import { describe, expect, it } from 'vitest';
import { runCompressor } from './budget.js';

describe("a run's compressor", () => {
  // Found by the traces work: the worker's compressor lost the flag, so the offline compressor's
  // faithfulness gate (docs/design.md §11) never ran inside compress jobs.
  it('keeps the offline compressor extractive, so its faithfulness gate runs in worker jobs', () => {
    const offline = createCompressor({ provider: 'offline' });
    expect(offline.extractive).toBe(true);
    const books = {
      sending: async () => undefined,
      paid: async () => undefined,
      refused: async () => undefined,
    };
    expect(runCompressor(offline, 'run-1', books).extractive).toBe(true);
  });
});
