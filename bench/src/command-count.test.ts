import { describe, expect, it } from 'vitest';
import { projected } from './command-count.js';

// The embedded server ignores a find's projection; the bytes received are counted as MongoDB
// would send them, so the projection a query asks for must be applied the way MongoDB applies it.
describe('projected (a find reply as MongoDB sends it)', () => {
  const doc = {
    _id: 'x',
    memoryId: 'm1',
    content: { raw: [{ role: 'user', text: 'long' }], processed: 'p' },
    compression: { v1: { compressedContent: 'v1', facts: ['f'] }, history: [{ stage: 'v1', at: 1 }] },
  };

  it('keeps the listed paths and _id, through nested documents and arrays', () => {
    expect(
      projected(doc, { memoryId: 1, 'compression.v1.compressedContent': 1, 'compression.history.stage': 1 }),
    ).toEqual({
      _id: 'x',
      memoryId: 'm1',
      compression: { v1: { compressedContent: 'v1' }, history: [{ stage: 'v1' }] },
    });
  });

  it('leaves _id out when excluded, and an exclusion removes only its paths', () => {
    expect(projected(doc, { _id: 0, memoryId: 1 })).toEqual({ memoryId: 'm1' });
    expect(projected(doc, { content: 0, 'compression.history': 0 })).toEqual({
      _id: 'x',
      memoryId: 'm1',
      compression: { v1: { compressedContent: 'v1', facts: ['f'] } },
    });
  });
});
