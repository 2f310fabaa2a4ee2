import {
  type Compressor,
  compressMemory,
  type ModelReply,
  RetentionGateError,
  stagePolicy,
  type V1Fields,
  type V2Fields,
  ZERO_USAGE,
} from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStore } from './memory-store.js';

/**
 * The retention gate on the pipeline's one path (compressMemory → gate → the conditional write),
 * on the eval's in-memory store (the same conditional writes as MongoDB's). V1 keeps every fact;
 * V2 keeps one of them. A compressor written by hand stands where a provider would.
 */

const TURNS = [
  { role: 'user', text: 'I moved to Lisbon on 7 May 2023 with my sister Ana.' },
  { role: 'assistant', text: 'How is the new flat?' },
  { role: 'user', text: 'The rent is 900 euros, and we visit Porto in June 2024.' },
];
const V1 =
  'The user moved to Lisbon on 7 May 2023 with her sister Ana; the rent is 900 euros; Porto in June 2024.';
const V2 = 'The user lives in Lisbon now and likes the new flat, which she shares with her family.';

const reply = <T>(fields: T): ModelReply<T> => ({
  fields,
  usage: ZERO_USAGE,
  model: 'scripted',
  promptVersion: 's',
});
const compressor: Compressor = {
  name: 'scripted',
  async compressV1() {
    return reply<V1Fields>({
      compressedContent: V1,
      keyPoints: [],
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    });
  },
  async compressV2() {
    return reply<V2Fields>({
      coreMemory: V2,
      coreMemoryPoints: [],
      memoryTraces: { clear: [], fuzzy: [], vague: [] },
      forgotten: { details: [], reason: '' },
      emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
      personalityNotes: '',
    });
  },
};

const NOW = new Date('2026-11-24T03:00:00Z');

function store(): InMemoryMemoryStore {
  const s = new InMemoryMemoryStore();
  s.putRoleCard({ userId: 'u' });
  s.putMemory({
    memoryId: 'm',
    userId: 'u',
    partnerId: 'p',
    content: { raw: TURNS },
    meta: { createdAt: new Date(NOW.getTime() - 10 * 86_400_000), compressionStage: 'raw', language: 'en' },
    rev: 0,
  });
  return s;
}

const loaded = async (s: InMemoryMemoryStore) =>
  (await s.loadMemory('m')) as {
    meta: { compressionStage: string };
    compression: { v1?: { warnings: string[] }; v2?: { warnings: string[]; coreMemory: string } };
  };

describe('retention-gated promotion', () => {
  // Short targets so the hand-written texts are not out of range: only retention is judged.
  const base = { minInputChars: 20, v2Length: { zh: { min: 10, max: 200 }, en: { min: 20, max: 500 } } };

  it('warn (the default): V2 is written, with the shortfall recorded among its warnings', async () => {
    const s = store();
    const outcome = await compressMemory('m', 'v2', 'run-1', {
      store: s,
      compressor,
      policy: stagePolicy(base),
      now: () => NOW,
    });
    expect(outcome.kind === 'advanced' && outcome.transitions.map((t) => t.stage)).toEqual(['v1', 'v2']);
    const doc = await loaded(s);
    expect(doc.meta.compressionStage).toBe('v2');
    expect(doc.compression.v1!.warnings.filter((w) => w.startsWith('retention'))).toEqual([]);
    expect(doc.compression.v2!.warnings).toContainEqual(
      expect.stringMatching(
        /^retention: V2 keeps 1 of the 6 facts of its input \(17%, below RETENTION_MIN_V2 50%\)/,
      ),
    );
    // The run counts it from the transition's warnings.
    const v2 = outcome.kind === 'advanced' ? outcome.transitions[1]! : undefined;
    expect(v2?.warnings.some((w) => w.startsWith('retention'))).toBe(true);
  });

  it('refuse: V2 is not written, the memory keeps V1, and the error says retention', async () => {
    const s = store();
    const policy = stagePolicy({ ...base, retention: { gate: 'refuse', minV1: 0.6, minV2: 0.5 } });
    const run = compressMemory('m', 'v2', 'run-1', { store: s, compressor, policy, now: () => NOW });
    await expect(run).rejects.toBeInstanceOf(RetentionGateError);
    await expect(run).rejects.toThrow(/^memory m: retention: V2 keeps 1 of the 6 facts/);
    const doc = await loaded(s);
    expect(doc.meta.compressionStage).toBe('v1');
    expect(doc.compression.v2).toBeUndefined();
  });
});
