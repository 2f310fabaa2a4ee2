import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMapping, startWorkerRole } from '@memfade/app';
import { memoryDocument } from '@memfade/db';
import { type Harness, startHarness } from '@memfade/system-tests';
import { childEnv, runScript, tempDir } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DAY = 24 * 60 * 60 * 1000;

/**
 * A user with two personas, a role card for one only, on a product whose memory ids are ObjectIds
 * (mapping `memory.id: _id`): doctor, the night's summary, its exit code and its error lines all
 * say the same thing, naming the pair without a card. The built CLI; the workers run in this process.
 */
describe('role cards per user and persona: doctor, the night and its exit code agree', () => {
  let harness: Harness;
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let mappingFile: string;
  const memfade = (...args: string[]) =>
    runScript(cli, args, {
      env: childEnv({
        REDIS_URL: harness.config.redisUrl!,
        MONGODB_URI: harness.config.mongodbUri!,
        MONGODB_DB: harness.config.mongodbDb,
        MEMFADE_QUEUE_PREFIX: harness.config.queuePrefix,
        MEMFADE_MAPPING: mappingFile,
        LANCEDB_DIR: join(folder.dir, 'lancedb'),
        SCHEDULER_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      }),
      timeoutMs: 120_000,
    });

  beforeAll(async () => {
    folder = await tempDir('memfade-cards-');
    mappingFile = join(folder.dir, 'mapping.yaml');
    await writeFile(
      mappingFile,
      'memory:\n  id: _id\nroleCard:\n  key: { userId: userId, partnerId: partnerId }\n',
    );
    // The CLI's clock is the real one: so is the workers'.
    harness = await startHarness({ now: new Date(), config: { mapping: loadMapping(mappingFile) } });
    const { models } = harness.services;
    const createdAt = new Date(Date.now() - 4 * DAY);
    for (let i = 0; i < 10; i++) {
      // The product's own documents: memfade's fields (rev, vectorSync, compression) are memfade's to
      // write under a mapping file (docs/design.md invariant 13), so the product writes none of them.
      const {
        rev: _rev,
        vectorSync: _sync,
        compression: _compression,
        ...doc
      } = memoryDocument({
        memoryId: `pair-${i}`,
        userId: 'u1',
        partnerId: i < 5 ? 'kai' : 'mia',
        turns: [
          {
            role: 'user',
            text: `We walked along the river at dusk and talked about moving to Porto next spring, and about the flat with the blue door, walk ${i}.`,
          },
        ],
        createdAt,
      });
      await models.memories.collection.insertOne({ _id: new models.memories.base.Types.ObjectId(), ...doc });
    }
    // u1 has a card, for Kai only.
    await models.roleCards.collection.insertOne({ userId: 'u1', partnerId: 'kai', name: 'Kai' });
  });
  afterAll(async () => {
    await harness?.close();
    await folder?.remove();
  });

  it("doctor names the pair without a card and does not end on a bare 'ready.'", async () => {
    const doctor = await memfade('doctor');
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(
      /^warning: 5 sampled memories have no role card \(keyed by user \(userId\) and partner \(partnerId\)\): user u1 with partner mia \(5\) and 0 an invalid one/m,
    );
    // Before: `ready.`, with the failures only in a warning among a dozen.
    expect(doctor.stdout.trim().split('\n').at(-1)).toBe(
      'ready, but 5 of 10 sampled memories will fail as bad input (the warnings above say which and why).',
    );
  });

  it('the night counts the failures it prints, exits 1, and each error names the pair', async () => {
    const workers = startWorkerRole(harness.services);
    try {
      const night = await memfade('run-now', '--wait');
      const lines = night.stdout.split('\n');
      const errors = lines.filter((line) => line.startsWith('error: '));
      expect(errors).toHaveLength(5);
      for (const line of errors)
        expect(line).toMatch(
          /^error: memory [0-9a-f]{24}: roleCard: no role card for user u1 with partner mia$/,
        );
      // The summary's errors column (the 10th) counts the same 5; before: 0, and exit 0.
      const header = lines[0]!.split(/\s{2,}/);
      const row = lines[2]!.split(/\s{2,}/);
      expect(header[9]).toBe('errors');
      expect(row[9]).toBe('5');
      expect(night.code, night.stderr).toBe(1);
    } finally {
      await workers.close();
    }
  });
});
