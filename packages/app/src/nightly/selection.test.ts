import type { DueMemory } from '@memfade/db';
import { describe, expect, it } from 'vitest';
import { onceEach } from './selection.js';

const due = (memoryId: string, stage: 'raw' | 'v1', createdAt: string): DueMemory => ({
  memoryId,
  userId: 'u',
  stage,
  createdAt: new Date(createdAt),
});

async function ids(memories: DueMemory[]): Promise<string[]> {
  const out: string[] = [];
  async function* stream() {
    yield* memories;
  }
  for await (const m of onceEach(stream())) out.push(`${m.memoryId}:${m.stage}`);
  return out;
}

describe('the due scan yields each memory once', () => {
  it('drops the second copy of a memory read by both stage scans, among others created at the same instant', async () => {
    // m2 moved from raw to V1 between the raw scan and the V1 scan: both read it.
    const merged = [
      due('m1', 'raw', '2026-11-01T00:00:00Z'),
      due('m2', 'raw', '2026-11-02T00:00:00Z'),
      due('m3', 'raw', '2026-11-02T00:00:00Z'),
      due('m2', 'v1', '2026-11-02T00:00:00Z'),
      due('m4', 'v1', '2026-11-03T00:00:00Z'),
    ];
    expect(await ids(merged)).toEqual(['m1:raw', 'm2:raw', 'm3:raw', 'm4:v1']);
  });

  it('keeps memories that share a creation date and those created later', async () => {
    const merged = [
      due('a', 'raw', '2026-11-02T00:00:00Z'),
      due('b', 'v1', '2026-11-02T00:00:00Z'),
      due('a2', 'raw', '2026-11-03T00:00:00Z'),
      due('b2', 'v1', '2026-11-04T00:00:00Z'),
    ];
    expect(await ids(merged)).toEqual(['a:raw', 'b:v1', 'a2:raw', 'b2:v1']);
  });
});
