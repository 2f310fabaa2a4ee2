import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRun, loadMapping, startWorkerRole, waitForRun } from '@memfade/app';
import type { Memory, Turn, V1Result } from '@memfade/core';
import { OWNER_MARK } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { childEnv, tempDir } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const cli = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const NOW = new Date('2026-11-22T03:00:00Z');

/**
 * Issue 35 hole 6, docs/design.md invariant 10: a mapping without writes.prefix puts memfade's fields
 * (`rev`, `compression`, `meta.compressedAt`, ...) beside the product's; where the product keeps data
 * of its own under one of those names, memfade writes nothing over it.
 */
const MAPPING_YAML = `
collections: { memories: notes, roleCards: personas }
memory:
  id: _id
  userId: uid
  createdAt: { path: created_at }
  conversation: { path: messages }
`;

/** The product's own data at memfade's field names, on three due memories (ages 9, 8 and 5). */
const PRODUCT_DATA: Record<string, { field: string; data: Record<string, unknown> }> = {
  'demo-zh-1-d9': { field: 'rev', data: { rev: 41 } },
  'demo-zh-1-d8': {
    field: 'meta.compressedAt',
    data: { meta: { compressedAt: new Date('2025-02-03T04:05:06Z'), source: 'import' } },
  },
  'demo-zh-1-d5': { field: 'compression', data: { compression: { codec: 'zstd', level: 3 } } },
};

describe("memfade writes no field of its name that holds the product's data", () => {
  let harness: Harness;
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let mappingFile: string;
  let inserted: Record<string, unknown>[];
  const runId = 'product-fields-night';

  const notes = () => harness.services.mongo.db!.collection('notes');

  beforeAll(async () => {
    folder = await tempDir('memfade-owned-');
    mappingFile = join(folder.dir, 'mapping.yaml');
    await writeFile(mappingFile, MAPPING_YAML);
    harness = await startHarness({ now: NOW, config: { mapping: loadMapping(mappingFile) } });
    const demo = generateDemoData({ now: NOW, users: 1 });
    inserted = demo.memories.map((doc) => {
      const m = doc as unknown as Memory;
      return {
        _id: m.memoryId,
        uid: m.userId,
        created_at: m.meta.createdAt,
        messages: m.content.raw as Turn[],
        ...PRODUCT_DATA[m.memoryId]?.data,
      };
    });
    await notes().insertMany(inserted as never[]);
    await harness.services.mongo.db!.collection('personas').insertMany(demo.roleCards as never[]);
    const workers = startWorkerRole(harness.services);
    await enqueueRun(harness.services, { runId, trigger: 'manual', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 90_000 });
    await workers.close();
    await harness.services.vectorSync.drain();
  }, 150_000);

  afterAll(async () => {
    await harness?.close();
    await folder?.remove();
  });

  it('the night leaves those documents exactly as the product wrote them and records why each failed', async () => {
    for (const [id, { field }] of Object.entries(PRODUCT_DATA)) {
      expect(await notes().findOne({ _id: id as never }), field).toEqual(inserted.find((d) => d._id === id));
    }
    const run = (await harness.services.runs.get(runId))!;
    // 1 user x 11 days: ages 3-10 are due, the three above fail.
    expect(run.counts).toMatchObject({ enqueued: 8, failed: 3 });
    const errors = await harness.services.runs.errors(runId, 10);
    expect(
      Object.fromEntries(
        errors.map((e) => [e.memoryId, e.message.match(/: ([\w.]+): holds the product's data/)?.[1]]),
      ),
    ).toEqual(Object.fromEntries(Object.entries(PRODUCT_DATA).map(([id, { field }]) => [id, field])));
    expect(errors[0]!.message).toMatch(/set mapping\.writes\.prefix or mapping\.writes\.collection/);
    // No vector record either: bad input is not embedded.
    expect(await harness.services.vectors.get(Object.keys(PRODUCT_DATA))).toEqual([]);
  });

  it("the other memories carry memfade's mark beside the fields it wrote", async () => {
    const compressed = await notes().findOne({ _id: 'demo-zh-1-d4' as never });
    expect(compressed).toMatchObject({ memfade: OWNER_MARK, rev: 1, meta: { compressionStage: 'v1' } });
  });

  it('a stage write is refused when the product writes a field of that name after the job read the memory', async () => {
    const { store, models } = harness.services;
    const { mapping } = harness.config;
    const id = 'demo-zh-1-d1';
    const asRead = (await store.loadMemory(id))!;
    // Between the read and the write, the product starts keeping its own `vectorSync`.
    await notes().updateOne({ _id: id as never }, { $set: { vectorSync: { by: 'product' } } });
    const result = { compressedContent: 'x', compressedAt: NOW } as unknown as V1Result;
    const history = [{ stage: 'v1' as const, at: NOW, runId: 'race', model: 'm', promptVersion: 'p' }];
    const transition = { memoryId: id, expectedStage: 'raw' as const, expectedRev: 0, stage: 'v1' as const };
    const write = { ...transition, result, history, searchText: 'x', asRead };
    expect(await store.applyTransition(write)).toBe(false);
    expect(await notes().findOne({ _id: id as never })).toEqual({
      ...inserted.find((d) => d._id === id),
      vectorSync: { by: 'product' },
    });
    expect(mapping.checksOwnership).toBe(true);
    expect(models.mapping.fields.owner).toBe('memfade');
  });

  it("forget removes what memfade wrote, and neither touches nor reports the product's own fields as left", async () => {
    const report = await harness.services.erasure.forget({ userId: 'demo-zh-1' }, { dryRun: false });
    expect(report.failures).toEqual([]);
    for (const id of Object.keys(PRODUCT_DATA))
      expect(await notes().findOne({ _id: id as never }), id).toEqual(inserted.find((d) => d._id === id));
    const forgotten = await notes().findOne({ _id: 'demo-zh-1-d4' as never });
    expect(forgotten).not.toHaveProperty('compression');
    expect(forgotten).toMatchObject({ meta: { compressionStage: 'raw' } });
  });

  it('doctor (built CLI) exits 1 naming each field and what to map instead', async () => {
    const { code, report } = await new Promise<{ code: number | null; report: Record<string, any> }>(
      (resolve) => {
        const env = childEnv({
          REDIS_URL: harness.config.redisUrl,
          MONGODB_URI: harness.config.mongodbUri,
          MONGODB_DB: harness.config.mongodbDb,
          MEMFADE_QUEUE_PREFIX: harness.config.queuePrefix,
          LANCEDB_DIR: harness.config.vector.dir,
          MEMFADE_MAPPING: mappingFile,
          LOG_LEVEL: 'warn',
        });
        const child = spawn(process.execPath, [cli, 'doctor', '--json'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.on('exit', (c) => resolve({ code: c, report: out ? JSON.parse(out) : {} }));
      },
    );
    expect(code).toBe(1);
    for (const { field } of Object.values(PRODUCT_DATA))
      expect(report.errors).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${field.replace('.', '\\.')}: 1 of 11 sampled memories hold the product's data .*set mapping\\.writes\\.prefix .* or mapping\\.writes\\.collection$`,
          ),
        ),
      );
  });
});

describe("a mapping file that maps only the role cards: the memory documents keep memfade's data contract", () => {
  it("memories inserted in memfade's own shape (rev 0, vectorSync, compression) are compressed, not refused as the product's data", async () => {
    const folder = await tempDir('memfade-cards-only-');
    const file = join(folder.dir, 'mapping.yaml');
    // Two personas per user: their cards are keyed by user and persona, the only reason for a file.
    await writeFile(file, 'roleCard:\n  key: { userId: userId, partnerId: partnerId }\n');
    const harness = await startHarness({ now: NOW, config: { mapping: loadMapping(file) } });
    try {
      const demo = generateDemoData({ now: NOW, users: 2 });
      const { models } = harness.services;
      // As the data contract (and `memfade import`) writes them: rev 0, vectorSync, compression.
      await models.memories.collection.insertMany(demo.memories.map((doc) => ({ ...doc })));
      await models.roleCards.collection.insertMany(
        demo.roleCards.map((card) => ({ ...card, partnerId: 'companion' })),
      );
      const workers = startWorkerRole(harness.services);
      try {
        const runId = await enqueueRun(harness.services, {
          runId: 'cards-only',
          trigger: 'manual',
          asOf: NOW,
        });
        const run = await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
        expect(run.counts.enqueued).toBeGreaterThan(5);
        expect(run.counts).toMatchObject({ failed: 0 });
        expect(run.counts.v1).toBeGreaterThan(0);
        expect(await harness.services.runs.errors(runId, 10)).toEqual([]);
      } finally {
        await workers.close();
      }
    } finally {
      await harness.close();
      await folder.remove();
    }
  });
});
