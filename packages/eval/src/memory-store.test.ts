import type { StageTransition, V1Result } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStore } from './memory-store.js';

const doc = () => ({
  memoryId: 'm1',
  userId: 'u1',
  content: { raw: [{ role: 'user', text: 'hello there' }] },
  meta: { createdAt: new Date('2026-01-01T00:00:00Z'), compressionStage: 'raw' },
  rev: 0,
});

const transition = (
  asRead: Record<string, unknown>,
  overrides: Partial<StageTransition> = {},
): StageTransition => ({
  memoryId: 'm1',
  expectedStage: 'raw',
  expectedRev: 0,
  stage: 'v1',
  result: { compressedContent: 'hello', compressedAt: new Date('2026-01-05T00:00:00Z') } as V1Result,
  history: [],
  searchText: 'hello',
  asRead,
  ...overrides,
});

describe('InMemoryMemoryStore: the conditional writes of the MongoDB store', () => {
  it('hands out copies, as a database read does: dates stay dates, and changing a copy stores nothing', async () => {
    const store = new InMemoryMemoryStore();
    const original = doc();
    store.putMemory(original);
    original.content.raw[0]!.text = 'changed before any read';
    const read = (await store.loadMemory('m1')) as ReturnType<typeof doc>;
    expect(read.content.raw[0]!.text).toBe('hello there');
    expect(read.meta.createdAt).toBeInstanceOf(Date);
    expect(read.meta.createdAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    read.content.raw[0]!.text = 'changed after the read';
    read.meta.createdAt.setFullYear(2000);
    const again = (await store.loadMemory('m1')) as ReturnType<typeof doc>;
    expect(again.content.raw[0]!.text).toBe('hello there');
    expect(again.meta.createdAt.getUTCFullYear()).toBe(2026);
  });

  it('applies a transition only at the expected stage and rev with the content as read', async () => {
    const store = new InMemoryMemoryStore();
    store.putMemory(doc());
    const asRead = (await store.loadMemory('m1'))!;
    expect(await store.applyTransition(transition(asRead, { expectedRev: 1 }))).toBe(false);
    expect(await store.applyTransition(transition(asRead, { expectedStage: 'v1' }))).toBe(false);
    const edited = { ...asRead, content: { raw: [{ role: 'user', text: 'edited' }] } };
    expect(await store.applyTransition(transition(edited))).toBe(false);
    expect(await store.applyTransition(transition(asRead))).toBe(true);
    const after = (await store.loadMemory('m1')) as ReturnType<typeof doc> & {
      compression: { v1: V1Result };
    };
    expect(after.meta.compressionStage).toBe('v1');
    expect(after.rev).toBe(1);
    expect(after.compression.v1.compressedContent).toBe('hello');
    // The same write again: the memory is no longer at (raw, 0).
    expect(await store.applyTransition(transition(asRead))).toBe(false);
  });

  it('discards stale stages back to raw and records errors without touching the rest', async () => {
    const store = new InMemoryMemoryStore();
    store.putMemory(doc());
    await store.applyTransition(transition((await store.loadMemory('m1'))!));
    const at = new Date('2026-01-06T00:00:00Z');
    const read = (await store.loadMemory('m1'))!;
    const discard = {
      memoryId: 'm1',
      expectedStage: 'v1' as const,
      expectedRev: 1,
      asRead: read,
      searchText: 'x',
      at,
    };
    expect(await store.discardStaleStages({ ...discard, expectedRev: 0 })).toBe(false);
    expect(await store.discardStaleStages(discard)).toBe(true);
    const after = (await store.loadMemory('m1')) as Record<string, never>;
    expect(after.meta).toEqual({ createdAt: doc().meta.createdAt, compressionStage: 'raw' });
    expect(after.compression).toEqual({ history: [], discarded: [] });
    await store.recordError('m1', { stage: 'v1', message: 'boom', at, attempts: 1 });
    expect(((await store.loadMemory('m1')) as Record<string, never>).compression).toMatchObject({
      lastError: { message: 'boom' },
    });
  });
});
