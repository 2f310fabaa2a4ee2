import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRun, loadMapping, startWorkerRole, waitForRun } from '@memfade/app';
import { type Memory, parseMemory, searchableText, stageDueAt, stageIndex, type Turn } from '@memfade/core';
import { countByStage, loadMemoryDocument, markVectorPending } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { childEnv, type LlmEmulator, startLlmEmulator, tempDir, until } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

const cli = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const NOW = new Date();

/**
 * A product that lets no worker write its memory documents: memories in `companion_memories` keyed
 * by `memory_uuid`, created at `created_ms` (epoch milliseconds), their turns one document each in
 * `companion_turns` (`memory_uuid`, `speaker`, `body`, `seq`), one persona for everyone. memfade
 * keeps all it writes in `memfade_side`.
 */
const MAPPING_YAML = `
collections:
  memories: companion_memories
memory:
  id: memory_uuid
  userId: account
  createdAt: { path: created_ms, format: epoch-millis }
  conversation:
    collection: companion_turns
    memoryId: memory_uuid
    order: seq
    turns: { role: speaker, text: body, roles: { member: user, companion: assistant } }
roleCard:
  default: { name: Kai, personality: [warm, curious], speakingStyle: plain }
writes:
  collection: memfade_side
`;

function productData(now: Date) {
  const demo = generateDemoData({ now, users: 6 });
  const memories = demo.memories.map((doc) => {
    const m = doc as unknown as Memory;
    return { memory_uuid: m.memoryId, account: m.userId, created_ms: m.meta.createdAt.getTime(), v: 3 };
  });
  const turns = demo.memories.flatMap((doc) => {
    const m = doc as unknown as Memory;
    // Inserted last turn first: the join orders them by `seq`.
    return (m.content.raw as Turn[])
      .map((turn, seq) => ({
        memory_uuid: m.memoryId,
        seq,
        speaker: turn.role === 'user' ? 'member' : 'companion',
        body: turn.text,
      }))
      .reverse();
  });
  return { memories, turns };
}

type DoctorRun = { code: number | null; report: Record<string, any>; stderr: string };

describe('a night in side-collection mode with joined turns (writes.collection)', () => {
  let harness: Harness;
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let mappingFile: string;
  let before: string[];
  let runId: string;
  let doctorBefore: DoctorRun;
  let doctorAfter: DoctorRun;

  const doctor = (file: string) =>
    new Promise<DoctorRun>((resolve) => {
      const env = childEnv({
        REDIS_URL: harness.config.redisUrl,
        MONGODB_URI: harness.config.mongodbUri,
        MONGODB_DB: harness.config.mongodbDb,
        MEMFADE_QUEUE_PREFIX: harness.config.queuePrefix,
        LANCEDB_DIR: harness.config.vector.dir,
        MEMFADE_MAPPING: file,
        LOG_LEVEL: 'warn',
      });
      const child = spawn(process.execPath, [cli, 'doctor', '--json'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.stderr.on('data', (chunk) => {
        err += chunk;
      });
      child.on('exit', (code) => resolve({ code, report: out ? JSON.parse(out) : {}, stderr: err }));
    });

  /** Every product document (memories and turns) as stored: its raw BSON bytes, from the server. */
  const productSnapshot = async () => {
    const db = harness.services.mongo.db!;
    const raw = (name: string) => db.collection(name).find({}, { raw: true }).sort({ _id: 1 }).toArray();
    const all = [...(await raw('companion_memories')), ...(await raw('companion_turns'))];
    return all.map((doc) => Buffer.from(doc as unknown as Uint8Array).toString('base64'));
  };

  beforeAll(async () => {
    folder = await tempDir('memfade-side-');
    mappingFile = join(folder.dir, 'mapping.yaml');
    await writeFile(mappingFile, MAPPING_YAML);
    harness = await startHarness({ now: NOW, config: { mapping: loadMapping(mappingFile) } });
    const db = harness.services.mongo.db!;
    const { memories, turns } = productData(NOW);
    await db.collection('companion_memories').insertMany(memories);
    await db.collection('companion_turns').insertMany(turns);
    before = await productSnapshot();
    doctorBefore = await doctor(mappingFile);
    // `memfade reindex`: enrols every memory (side documents at raw) and flags them for the outbox.
    expect(await markVectorPending(harness.services.models, 'all')).toBe(66);
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { runId: 'side-night', trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 120_000 });
    await workers.close();
    await harness.services.vectorSync.drain();
    doctorAfter = await doctor(mappingFile);
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
    await folder?.remove();
  });

  it('reaches the stage each age says, each stage once, every product document byte-identical', async () => {
    const { policy } = harness.config;
    const { models } = harness.services;
    const db = harness.services.mongo.db!;
    const products = await db.collection('companion_memories').find({}).toArray();
    const ids = products.map((p) => String(p.memory_uuid));
    const vectors = new Map((await harness.services.vectors.get(ids)).map((r) => [r.id, r]));
    const run = (await harness.services.runs.get(runId))!;
    let due = 0;
    let lost = 0;
    let appliedTwice = 0;
    const applied = { v1: 0, v2: 0 };
    const problems: string[] = [];
    for (const product of products) {
      const id = String(product.memory_uuid);
      const memory = parseMemory((await loadMemoryDocument(models, id))!, policy);
      const stage = memory.meta.compressionStage;
      const target = stageDueAt(new Date(product.created_ms), NOW, policy);
      if (target !== 'raw') due++;
      if (stage !== target) lost++;
      const history = (memory.compression?.history ?? []).map((h) => h.stage);
      if (!history.every((s, i) => stageIndex(s) === i + 1)) appliedTwice++;
      for (const s of history) applied[s as 'v1' | 'v2']++;
      if (memory.compression?.lastError) problems.push(`${id}: failed`);
      const vector = vectors.get(id);
      if (vector?.stage !== stage || vector.text !== searchableText(memory))
        problems.push(`${id}: vector holds ${vector?.stage ?? 'nothing'}, memory is at ${stage}`);
    }
    expect({ memories: products.length, due, lost, appliedTwice }).toEqual({
      memories: 66,
      due: 48,
      lost: 0,
      appliedTwice: 0,
    });
    expect(problems).toEqual([]);
    expect(run.counts).toMatchObject({
      enqueued: 48,
      processed: 48,
      failed: 0,
      v1: applied.v1,
      v2: applied.v2,
    });
    expect(await countByStage(models)).toEqual({ raw: 18, v1: 24, v2: 24, other: 0 });
    // Not one byte of the product's memories or turns changed.
    expect(await productSnapshot()).toEqual(before);
    const side = await db.collection('memfade_side').findOne({ _id: 'demo-zh-1-d8' as never });
    expect(side).toMatchObject({ userId: 'demo-zh-1', stage: 'v2', rev: 2, vectorSync: { pending: false } });
    expect(side?.createdAt).toBeInstanceOf(Date);
    expect(await db.collection('memfade_side').countDocuments({})).toBe(66);
  });

  it('the joined turns are read in order, as the product stores them', async () => {
    const db = harness.services.mongo.db!;
    const [product] = await db.collection('companion_memories').find({}).limit(1).toArray();
    const id = String(product!.memory_uuid);
    const memory = await loadMemoryDocument(harness.services.models, id);
    const turns = (memory!.content as { raw: Turn[] }).raw;
    expect(turns[0]!.role).toBe('user');
    expect(turns.length).toBeGreaterThan(1);
    const stored = await db
      .collection('companion_turns')
      .find({ memory_uuid: id })
      .sort({ seq: 1 })
      .toArray();
    expect(turns.map((t) => t.text)).toEqual(stored.map((t) => t.body));
  });

  it('doctor (built CLI) reports the side collection, its indexes, and no product document written', () => {
    for (const { code, stderr } of [doctorBefore, doctorAfter]) expect(code, stderr).toBe(0);
    expect(doctorBefore.report.errors).toEqual([]);
    expect(doctorBefore.report.writes).toEqual({
      mode: 'side',
      collection: 'memfade_side',
      productDocumentsWritten: false,
      sideDocuments: 0,
      turns: { collection: 'companion_turns', memoryId: 'memory_uuid', order: 'seq' },
    });
    expect(doctorAfter.report.writes).toMatchObject({ sideDocuments: 66, productDocumentsWritten: false });
    expect(doctorAfter.report.writes.enrolledThrough).toEqual(expect.any(String));
    const index = (collection: string, name: string) =>
      doctorBefore.report.indexes.find(
        (i: { collection: string; name: string }) => i.collection === collection && i.name === name,
      );
    expect(index('memfade_side', 'due_scan')).toMatchObject({
      keys: { stage: 1, createdAt: 1 },
      present: true,
    });
    expect(index('memfade_side', 'vector_pending')).toMatchObject({
      keys: { 'vectorSync.pending': 1 },
      present: true,
    });
    expect(index('memfade_side', 'user')).toMatchObject({ keys: { userId: 1 }, present: true });
    // The product's collections get theirs only from doctor --create-indexes (invariant 10).
    expect(index('companion_memories', 'created')).toMatchObject({
      keys: { created_ms: 1 },
      owner: 'product',
      present: false,
    });
    expect(index('companion_turns', 'memfade_turns')).toMatchObject({
      keys: { memory_uuid: 1, seq: 1 },
      owner: 'product',
      present: false,
    });
    // No due-scan index on the product's collection: the stage is not there.
    expect(index('companion_memories', 'due_scan')).toBeUndefined();
    const field = (key: string) => doctorBefore.report.fields.find((f: { key: string }) => f.key === key);
    expect(field('mapping.memory.conversation.collection')).toMatchObject({ ok: 66, missing: 0 });
    expect(field('mapping.memory.stage')).toBeUndefined();
    // Tonight: 48 memories reach V1 (ages 3-10), 24 of them also V2 (ages 7-10).
    expect(doctorBefore.report.nights[0]).toMatchObject({ night: 'tonight', v1: 48, v2: 24 });
    expect(doctorAfter.report.nights[0]).toMatchObject({ night: 'tonight', v1: 0, v2: 0 });
  });

  // Last: these change the product's documents.
  it('an edit after the stage: the outbox embeds the new raw text, never the stale stage', async () => {
    const { models } = harness.services;
    const db = harness.services.mongo.db!;
    const v1 = await db.collection('memfade_side').findOne({ stage: 'v1' });
    const id = String(v1!._id);
    await db
      .collection('companion_turns')
      .updateOne({ memory_uuid: id, seq: 0 }, { $set: { body: 'Redacted.' } });
    await db
      .collection('memfade_side')
      .updateOne({ _id: id as never }, { $set: { 'vectorSync.pending': true } });
    await harness.services.vectorSync.drain();
    const memory = parseMemory((await loadMemoryDocument(models, id))!, harness.config.policy);
    expect(memory.meta.compressionStage).toBe('raw');
    const [record] = await harness.services.vectors.get([id]);
    expect(record).toMatchObject({ stage: 'raw', text: searchableText(memory) });
    expect(record!.text).toContain('Redacted.');
  });

  it('a memory the product deleted leaves no side document and no vector record after the sweep', async () => {
    const db = harness.services.mongo.db!;
    const v2 = await db.collection('memfade_side').findOne({ stage: 'v2' });
    const id = String(v2!._id);
    await db.collection('companion_memories').deleteOne({ memory_uuid: id });
    await db.collection('companion_turns').deleteMany({ memory_uuid: id });
    expect(await harness.services.vectorSync.sweepAll()).toMatchObject({ gone: 1, orphans: 1 });
    expect(await db.collection('memfade_side').countDocuments({ _id: id as never })).toBe(0);
    expect(await harness.services.vectors.get([id])).toEqual([]);
  });
});

/**
 * docs/design.md invariant 7 in side-collection mode: the product edits a joined turn while the job waits on
 * the model. The stage write is made, seen to be stale, and reverted; the job starts over from the
 * new text, as in prefix mode, and the product's memory document is never written.
 */
describe('side-collection mode: the product edits a turn while its job waits on the model', () => {
  const SECRET = 'My bank PIN is 4417 and my home address is 12 Quiet Lane.';
  let harness: Harness | undefined;
  let emulator: LlmEmulator | undefined;
  let folder: Awaited<ReturnType<typeof tempDir>> | undefined;
  afterAll(async () => {
    await harness?.close();
    await emulator?.close();
    await folder?.remove();
  });

  it('writes no stage from the old text, and compresses the new text in the same job', async () => {
    emulator = await startLlmEmulator();
    emulator.setRule(({ api }) => (api === 'embeddings' ? undefined : { kind: 'slow', delayMs: 600 }));
    folder = await tempDir('memfade-side-edit-');
    const mappingFile = join(folder.dir, 'mapping.yaml');
    await writeFile(mappingFile, MAPPING_YAML);
    harness = await startHarness({
      now: NOW,
      config: {
        mapping: loadMapping(mappingFile),
        provider: emulatedAnthropic(emulator, { timeoutMs: 10_000 }),
      },
    });
    const { services } = harness;
    const db = services.mongo.db!;
    await db
      .collection('companion_memories')
      .insertOne({ memory_uuid: 'redacted', account: 'u1', created_ms: NOW.getTime() - 4 * 86_400_000 });
    const first = (secret: string) =>
      `I finally sorted out the paperwork for the new flat today. ${secret} The move is on Saturday and my sister Mia is driving the van from Leeds.`;
    await db.collection('companion_turns').insertMany([
      { memory_uuid: 'redacted', seq: 0, speaker: 'member', body: first(SECRET) },
      {
        memory_uuid: 'redacted',
        seq: 1,
        speaker: 'companion',
        body: 'That is a big step! Saturday will come fast. Is there anything you still need to pack?',
      },
      {
        memory_uuid: 'redacted',
        seq: 2,
        speaker: 'member',
        body: 'Only the books. Tom from work will help with the sofa.',
      },
    ]);
    const memoryBytes = async () =>
      (await db.collection('companion_memories').find({}, { raw: true }).toArray()).map((doc) =>
        Buffer.from(doc as unknown as Uint8Array).toString('base64'),
      );
    const before = await memoryBytes();
    const workers = startWorkerRole(services);
    const runId = await enqueueRun(services, { runId: 'side-redaction', trigger: 'manual', asOf: NOW });
    await until(async () => emulator!.requests.filter((r) => r.api !== 'embeddings').length >= 1, 10_000);
    await db
      .collection('companion_turns')
      .updateOne({ memory_uuid: 'redacted', seq: 0 }, { $set: { body: first('') } });
    const run = await waitForRun(services, runId);
    await workers.close();
    await services.vectorSync.drain();

    const side = (await db.collection('memfade_side').findOne({ _id: 'redacted' as never }))!;
    // Written at rev 1, reverted at rev 2, written again from the new text at rev 3.
    expect(side).toMatchObject({ stage: 'v1', rev: 3 });
    expect(side.compression.history).toHaveLength(1);
    expect(JSON.stringify(side.compression)).not.toMatch(/4417|Quiet Lane/);
    expect(side.compression.v1.compressedContent).toMatch(/Mia/);
    const [vector] = await services.vectors.get(['redacted']);
    expect(vector?.stage).toBe('v1');
    expect(vector?.text).not.toMatch(/4417|Quiet Lane/);
    const calls = emulator.requests.filter((r) => r.api === 'messages');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.body)).not.toContain('4417');
    expect(run.counts).toMatchObject({ v1: 1, failed: 0 });
    expect(await memoryBytes()).toEqual(before);
  });
});
