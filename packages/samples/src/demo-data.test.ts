import { measureLength, rawText, type Turn } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { generateDemoData } from './demo-data.js';

const NOW = new Date('2026-05-01T12:00:00Z');

describe('generateDemoData', () => {
  it('keeps the shape tests and the fault rig count on: users × 11 days, its ids, a short greeting every fourth day', () => {
    const data = generateDemoData({ now: NOW, users: 24 });
    expect(data.roleCards).toHaveLength(24);
    expect(data.memories).toHaveLength(24 * 11);
    const ids = data.memories.map((m) => m.memoryId);
    expect(ids.slice(0, 3)).toEqual(['demo-zh-1-d0', 'demo-zh-1-d1', 'demo-zh-1-d2']);
    expect(ids).toContain('demo-en-24-d10');
    for (const memory of data.memories as { memoryId: string; content: { raw: Turn[] } }[]) {
      const day = Number(memory.memoryId.split('-d').at(-1));
      const length = measureLength(rawText(memory.content.raw));
      if (day % 4 === 3) {
        expect(memory.content.raw).toHaveLength(2);
        expect(length).toBeLessThan(100);
      } else {
        // Long enough for three stages: V1 a few hundred characters, V2 visibly shorter.
        expect(length).toBeGreaterThan(memory.memoryId.startsWith('demo-zh') ? 600 : 1600);
        expect(memory.content.raw.map((t) => t.role)).toEqual(
          memory.content.raw.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')),
        );
      }
    }
  });

  it('gives each user a named companion persona, and one friend and place per conversation', () => {
    const data = generateDemoData({ now: NOW, users: 6 });
    expect(data.roleCards.map((c) => c.name)).toEqual(['小暖', 'Juno', '阿澈', 'Theo', '星星', 'Iris']);
    const texts = (data.memories as { content: { raw: Turn[] } }[]).map((m) => rawText(m.content.raw));
    for (const text of texts) expect(text).not.toMatch(/\{(?:place|person)\}/);
    // The same seed gives the same data.
    expect(generateDemoData({ now: NOW, users: 6 })).toEqual(data);
  });
});
