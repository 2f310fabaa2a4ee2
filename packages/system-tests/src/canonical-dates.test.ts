import { Writable } from 'node:stream';
import { defaultConfig, enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { type Memory, type RoleCard, stageDueAt, type Turn } from '@memfade/core';
import { countByStage, DATE_FORMATS, type DateFormat, markVectorPending, parseMapping } from '@memfade/db';
import { createLogger } from '@memfade/runtime';
import { generateDemoData } from '@memfade/samples';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

/** A date in one of the encodings a product may store (the ISO one without milliseconds, with an offset). */
function encode(date: Date, format: DateFormat): Date | string | number {
  switch (format) {
    case 'date':
      return date;
    case 'iso':
      return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
    case 'epoch-seconds':
      return Math.floor(date.getTime() / 1000);
    case 'epoch-millis':
      return date.getTime();
  }
}

function decode(value: Date | string | number): Date {
  return typeof value === 'number' && value < 1e11 ? new Date(value * 1000) : new Date(value);
}

/**
 * docs/design.md invariant 7 and issue 35 hole 5: a memory's text is read, parsed and hashed from one
 * canonical form, so the erasure sweep never takes memfade's own reading of a conversation for an
 * edit by the product. The product's turns carry their time as `ts` (mapped as the turn time) in every
 * encoding, mixed within one collection; its creation date in each declared format.
 */
const CASES = [
  ...DATE_FORMATS.map((format) => ({ format, mode: 'sync' as const })),
  // Batch mode: the request record holds the hash the stage is written with (docs/design.md §6).
  { format: 'epoch-millis' as const, mode: 'batch' as const },
];

describe.each(CASES)(
  'stages stay after a night and a sweep (creation dates as $format, $mode mode)',
  ({ format, mode }) => {
    let harness: Harness;
    let emulator: LlmEmulator | undefined;
    const logged: Record<string, unknown>[] = [];

    beforeAll(async () => {
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
          done();
        },
      });
      const mapping = parseMapping({
        collections: { memories: 'chats', roleCards: 'personas' },
        memory: {
          id: '_id',
          userId: 'uid',
          createdAt: { path: 'created', format },
          conversation: {
            path: 'messages',
            turns: { role: 'from', text: 'body', at: 'ts', roles: { human: 'user', ai: 'assistant' } },
          },
        },
        writes: { prefix: 'mf' },
      });
      if (mode === 'batch') emulator = await startLlmEmulator();
      harness = await startHarness({
        now: NOW,
        config: {
          mapping,
          ...(emulator && {
            provider: emulatedAnthropic(emulator),
            batch: { ...defaultConfig().batch, mode: 'batch', minCalls: 1, pollMs: 50 },
          }),
        },
        logger: createLogger({ level: 'info', destination }),
      });
      const demo = generateDemoData({ now: NOW, users: 2 });
      const memories = demo.memories.map((doc, i) => {
        const m = doc as unknown as Memory;
        // Each memory's turns in one encoding, the four of them across the collection.
        const turnFormat = DATE_FORMATS[i % DATE_FORMATS.length]!;
        return {
          _id: m.memoryId,
          uid: m.userId,
          created: encode(m.meta.createdAt, format),
          messages: (m.content.raw as Turn[]).map((turn, t) => ({
            from: turn.role === 'user' ? 'human' : 'ai',
            body: turn.text,
            ts: encode(new Date(m.meta.createdAt.getTime() + t * 61_123), turnFormat),
          })),
        };
      });
      const db = harness.services.mongo.db!;
      await db.collection('chats').insertMany(memories as never[]);
      await db.collection('personas').insertMany(demo.roleCards.map((card: RoleCard) => ({ ...card })));
      expect(await markVectorPending(harness.services.models, 'all')).toBe(22);
      const workers = startWorkerRole(harness.services);
      const runId = await enqueueRun(harness.services, {
        runId: `dates-${format}-${mode}`,
        trigger: 'manual',
        asOf: NOW,
      });
      await waitForRun(harness.services, runId, { timeoutMs: 90_000 });
      await workers.close();
      await harness.services.vectorSync.drain();
    }, 150_000);
    afterAll(async () => {
      await harness?.close();
      await emulator?.close();
    });

    it('the night reaches each stage, and the sweep takes none of them back to raw', async () => {
      const { models, vectorSync } = harness.services;
      // 2 users x 11 days: ages 0-2 stay raw, 3-6 reach V1, 7-10 reach V2.
      const expected = { raw: 6, v1: 8, v2: 8, other: 0 };
      expect(await countByStage(models)).toEqual(expected);
      expect(await vectorSync.sweepAll()).toMatchObject({ restaged: 0, outdated: 0, gone: 0 });
      expect(await countByStage(models)).toEqual(expected);
      const docs = await harness.services.mongo.db!.collection('chats').find({}).toArray();
      const lost = docs.filter(
        (doc) => (doc.mf?.stage ?? 'raw') !== stageDueAt(decode(doc.created), NOW, harness.config.policy),
      );
      expect(lost.map((doc) => doc._id)).toEqual([]);
      expect(logged.filter((line) => line.restaged)).toEqual([]);
      if (mode === 'sync') return;
      // Each stage was written with the hash its batch request recorded when it was built.
      const requests = await harness.services.models.batchRequests
        .find({})
        .lean<{ memoryId: string; stage: string; inputHash: string }[]>();
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        const doc = docs.find((d) => String(d._id) === request.memoryId);
        expect(doc?.mf?.compression?.[request.stage]?.sourceHash, request.memoryId).toBe(request.inputHash);
      }
    });

    it('a memory the product edited after its stage goes back to raw, and the sweep says so at warn with its counts', async () => {
      const chats = harness.services.mongo.db!.collection('chats');
      const edited = await chats.findOne({ 'mf.stage': 'v2' });
      const messages = [
        { ...edited!.messages[0], body: 'redacted by the product' },
        ...edited!.messages.slice(1),
      ];
      await chats.updateOne({ _id: edited!._id }, { $set: { messages } });
      expect(await harness.services.vectorSync.sweepAll()).toMatchObject({ restaged: 1 });
      expect((await chats.findOne({ _id: edited!._id }))?.mf?.stage).toBe('raw');
      const said = logged.filter((line) => line.restaged);
      expect(said).toEqual([expect.objectContaining({ level: 40, restaged: 1, checked: 22 })]);
      expect(JSON.stringify(said)).not.toContain('redacted by the product');
    });

    it('a sweep removing 100 records or more says so at warn, with counts only', async () => {
      const { vectors, embedder, vectorSync } = harness.services;
      // Records of 100 memories the product has since deleted.
      const ids = Array.from({ length: 100 }, (_, i) => `deleted-${String(i).padStart(3, '0')}`);
      const [vector] = await embedder.embed(['a memory the product deleted']);
      await vectors.upsert(
        ids.map((id) => ({
          id,
          userId: 'gone',
          partnerId: 'default',
          stage: 'raw' as const,
          text: 'a memory the product deleted',
          vector: vector!,
          embeddingModel: embedder.model,
          updatedAt: NOW,
          rev: 0,
        })),
      );
      const before = logged.length;
      expect(await vectorSync.sweepAll()).toMatchObject({ gone: 100, restaged: 0 });
      const said = logged.slice(before).filter((line) => line.gone);
      expect(said).toEqual([expect.objectContaining({ level: 40, gone: 100 })]);
      expect(JSON.stringify(said)).not.toContain('deleted-0');
    });
  },
);
