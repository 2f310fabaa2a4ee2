import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRun, loadMapping, startWorkerRole, waitForRun } from '@memfade/app';
import {
  type Memory,
  parseMemory,
  type RoleCard,
  searchableText,
  stageDueAt,
  stageIndex,
  type Turn,
} from '@memfade/core';
import { canonical, countByStage, markVectorPending, valueAt } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { childEnv, tempDir } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const cli = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const NOW = new Date();

/**
 * A product that never heard of memfade's field names: memories in `chat_memories` with their id at
 * `_id`, the conversation as `messages: [{ sender: 'human' | 'ai', content, ts }]`, the creation date
 * an ISO string at `created_at`, and role cards in `角色卡` with Chinese field names. The mapping
 * file (YAML) says so, and memfade writes under `memfade.` beside the product's fields.
 */
const MAPPING_YAML = `
collections:
  memories: chat_memories
  roleCards: 角色卡
memory:
  id: _id
  userId: uid
  partnerId: companion
  createdAt: { path: created_at, format: iso }
  language: lang
  conversation:
    path: messages
    turns: { role: sender, text: content, at: ts, roles: { human: user, ai: assistant } }
  processed: digest
  pendingTopics: topics_todo
roleCard:
  key: 用户
  name: 名字
  personality: 性格
  values: 价值观
  hobbies: 爱好
  speakingStyle: 说话风格
  language: 语言
writes:
  prefix: memfade
`;

/** The demo memories and cards, written the way this product would have written them. */
function productData(now: Date) {
  const demo = generateDemoData({ now, users: 6 });
  const memories = demo.memories.map((doc) => {
    const m = doc as unknown as Memory;
    return {
      _id: m.memoryId,
      uid: m.userId,
      companion: m.partnerId,
      messages: (m.content.raw as Turn[]).map((turn, i) => ({
        sender: turn.role === 'user' ? 'human' : 'ai',
        content: turn.text,
        ts: new Date(m.meta.createdAt.getTime() + i * 60_000).toISOString(),
      })),
      created_at: m.meta.createdAt.toISOString(),
      channel: 'app',
    };
  });
  const cards = demo.roleCards.map((card: RoleCard) => ({
    用户: card.userId,
    名字: card.name,
    性格: card.personality,
    价值观: card.values,
    爱好: card.hobbies,
    说话风格: card.speakingStyle,
    语言: card.language,
  }));
  return { memories, cards };
}

describe('a night on a product database shaped its own way (MEMFADE_MAPPING)', () => {
  let harness: Harness;
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let mappingFile: string;
  let originals: Map<string, string>;
  let runId: string;
  let doctorBefore: { code: number | null; report: Record<string, any>; stderr: string };

  const doctor = (file: string) =>
    new Promise<{ code: number | null; report: Record<string, any>; stderr: string }>((resolve) => {
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

  const productDocs = async () => harness.services.models.memories.collection.find({}).toArray();
  /** The product's own fields of a document: everything but memfade's prefix. */
  const productPart = (doc: Record<string, unknown>) => {
    const { memfade: _, ...rest } = doc;
    return JSON.stringify(rest);
  };

  beforeAll(async () => {
    folder = await tempDir('memfade-mapping-');
    mappingFile = join(folder.dir, 'mapping.yaml');
    await writeFile(mappingFile, MAPPING_YAML);
    harness = await startHarness({ now: NOW, config: { mapping: loadMapping(mappingFile) } });
    const db = harness.services.mongo.db!;
    const { memories, cards } = productData(NOW);
    await db.collection('chat_memories').insertMany(memories as never[]);
    await db.collection('角色卡').insertMany(cards);
    originals = new Map(memories.map((m) => [m._id, productPart(m)]));
    doctorBefore = await doctor(mappingFile);
    // The product writes no outbox flag: `memfade reindex` gives the raw memories their vector record.
    expect(await markVectorPending(harness.services.models, 'all')).toBe(66);
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { runId: 'mapped-night', trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 120_000 });
    await workers.close();
    await harness.services.vectorSync.drain();
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
    await folder?.remove();
  });

  it("reads the product's documents through the mapping in core's shape", async () => {
    const [doc] = await productDocs();
    const memory = parseMemory(canonical(doc!, harness.config.mapping), harness.config.policy);
    expect(memory.memoryId).toBe(doc!._id);
    expect(memory.meta.createdAt).toEqual(new Date(doc!.created_at));
    expect((memory.content.raw as Turn[]).map((t) => t.role)).toContain('assistant');
    expect((memory.content.raw as Turn[])[0]).toMatchObject({ role: 'user', text: doc!.messages[0].content });
  });

  it('reaches the stage each age says, each stage once, originals untouched, vectors current', async () => {
    const { policy, mapping } = harness.config;
    const docs = await productDocs();
    const vectors = new Map(
      (await harness.services.vectors.get(docs.map((d) => String(d._id)))).map((r) => [r.id, r]),
    );
    const run = (await harness.services.runs.get(runId))!;
    let due = 0;
    let lost = 0;
    let appliedTwice = 0;
    const applied = { v1: 0, v2: 0 };
    const problems: string[] = [];
    for (const doc of docs) {
      const id = String(doc._id);
      const memory = parseMemory(canonical(doc, mapping), policy);
      const stage = memory.meta.compressionStage;
      const target = stageDueAt(new Date(doc.created_at), NOW, policy);
      if (target !== 'raw') due++;
      if (stage !== target) lost++;
      const history = (memory.compression?.history ?? []).map((h) => h.stage);
      if (!history.every((s, i) => stageIndex(s) === i + 1)) appliedTwice++;
      for (const stage of history) applied[stage as 'v1' | 'v2']++;
      if ((history.at(-1) ?? 'raw') !== stage) problems.push(`${id}: history ends at ${history.at(-1)}`);
      if (productPart(doc) !== originals.get(id)) problems.push(`${id}: the product's fields changed`);
      if (valueAt(doc, 'memfade.compression.lastError')) problems.push(`${id}: failed`);
      const vector = vectors.get(id);
      if (vector?.stage !== stage || vector.text !== searchableText(memory))
        problems.push(`${id}: vector holds ${vector?.stage ?? 'nothing'}, memory is at ${stage}`);
    }
    // 6 users x 11 days: ages 0-2 stay raw, 3-6 reach V1, 7-10 reach V2.
    expect({ memories: docs.length, due, lost, appliedTwice }).toEqual({
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
    expect(await countByStage(harness.services.models)).toEqual({ raw: 18, v1: 24, v2: 24, other: 0 });
    // memfade's fields sit under the prefix, and nowhere else.
    const compressed = docs.find((d) => String(d._id) === 'demo-zh-1-d8')!;
    expect(compressed.memfade).toMatchObject({ stage: 'v2', rev: 2, vectorSync: { pending: false } });
    expect(Object.keys(compressed).sort()).toEqual(
      ['_id', 'channel', 'companion', 'created_at', 'memfade', 'messages', 'uid'].sort(),
    );
  });

  it("a whole night creates no index on the product's collections, only on memfade's own (invariant 10)", async () => {
    const db = harness.services.mongo.db!;
    const names = async (collection: string) =>
      (await db.collection(collection).indexes()).map((i) => i.name);
    expect(await names('chat_memories')).toEqual(['_id_']);
    expect(await names('角色卡')).toEqual(['_id_']);
    expect(await names('compression_runs')).toContain('run_id');
  });

  it('doctor (built CLI) reports the mapped fields, role cards and due memories, exit 0', () => {
    const { code, report, stderr } = doctorBefore;
    expect(code, stderr).toBe(0);
    expect(report.errors).toEqual([]);
    expect(report.mapping).toBe(mappingFile);
    expect(report.sampled).toBe(66);
    const field = (key: string) => report.fields.find((f: { key: string }) => f.key === key);
    expect(field('mapping.memory.createdAt.path')).toMatchObject({
      field: 'created_at',
      expected: 'an ISO 8601 date string (UTC)',
      ok: 66,
      missing: 0,
    });
    expect(field('mapping.memory.conversation.path')).toMatchObject({ field: 'messages', ok: 66 });
    expect(field('mapping.memory.id')).toMatchObject({ field: '_id', ok: 66 });
    // No stage yet anywhere: every memory is raw.
    expect(field('mapping.memory.stage')).toMatchObject({ field: 'memfade.stage', ok: 66, missing: 0 });
    // Cards and memories counted apart: six cards, used by the 66 memories.
    expect(report.roleCards).toMatchObject({
      collection: '角色卡',
      keyedBy: 'user (用户)',
      documents: 6,
      used: 6,
      invalid: 0,
      memories: { withCard: 66, missing: 0, invalid: 0 },
    });
    // Six users, six cards; this product's cards have no values (价值观): a warning, not an error.
    expect(report.roleCardFields).toContainEqual({ field: '名字', key: 'mapping.roleCard.name', found: 6 });
    expect(report.warnings).toContainEqual(
      'mapping.roleCard.values (价值观): no role card found has it; check the mapping',
    );
    expect(report.languages).toEqual({ zh: 33, en: 33 });
    // Tonight: 48 memories reach V1 (ages 3-10), 24 of them also V2 (ages 7-10).
    expect(report.nights[0]).toMatchObject({ night: 'tonight', v1: 48, v2: 24 });
    const dueScan = report.indexes.find((i: { name: string }) => i.name === 'due_scan');
    expect(dueScan).toMatchObject({
      collection: 'chat_memories',
      keys: { 'memfade.stage': 1, created_at: 1 },
      owner: 'product',
      present: false,
    });
    expect(dueScan.withoutIt).toMatch(/^each run's due scan \(and status\) is a scan of all 66 documents/);
  });

  it('doctor on a mapping with a wrong path exits 1 naming the key and the path', async () => {
    const broken = join(folder.dir, 'broken.yaml');
    await writeFile(broken, MAPPING_YAML.replace('path: created_at', 'path: createdAt'));
    const { code, report } = await doctor(broken);
    expect(code).toBe(1);
    expect(report.errors).toContainEqual(
      expect.stringMatching(/^mapping\.memory\.createdAt\.path \(createdAt\): no sampled memory has/),
    );
  });

  it('a malformed mapping file stops start-up with the key named', async () => {
    const malformed = join(folder.dir, 'malformed.yaml');
    await writeFile(malformed, MAPPING_YAML.replace('format: iso', 'format: unix'));
    const { code, stderr } = await doctor(malformed);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'mapping.memory.createdAt.format: expected one of date, iso, epoch-seconds, epoch-millis',
    );
  });
});
