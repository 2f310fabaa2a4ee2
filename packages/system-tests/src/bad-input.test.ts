import { createHash } from 'node:crypto';
import { enqueueRun, startWorkerRole, VectorSyncer, waitForRun } from '@memfade/app';
import { stagePolicy } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { compressJobId } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { generateDemoData } from '@memfade/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;
const RUN_ID = 'nightly-2026-11-22';

type Doc = Record<string, any>;

interface BadCase {
  memoryId: string;
  /** What is wrong with it, applied to an otherwise valid memory 5 days old (due for V1). */
  change?: (doc: Doc) => void;
  userId?: string;
  /** The reason recorded on the memory and in the run: it names the memory and the field. */
  message: RegExp;
}

/**
 * The catalogue (README "Bad input fails alone"). Every row is a memory of its own in ONE nightly
 * run beside the demo users' good memories. Unpaired UTF-16 surrogates are not a row: the MongoDB
 * driver turns them into U+FFFD when the product writes them, so they cannot reach memfade from the
 * database (parse.test.ts covers them for other sources).
 */
const CASES: BadCase[] = [
  {
    memoryId: 'bad-no-date',
    change: (d) => delete d.meta.createdAt,
    message: /^memory bad-no-date: meta\.createdAt: missing or not a date/,
  },
  {
    memoryId: 'bad-date-text',
    change: (d) => (d.meta.createdAt = 'last tuesday'),
    message: /^memory bad-date-text: meta\.createdAt: a string, not a BSON date: "last tuesday"/,
  },
  {
    // Even a well-formed date string: the due scan (a range query on a date) would never select it.
    memoryId: 'bad-date-iso-string',
    change: (d) => (d.meta.createdAt = new Date(NOW.getTime() - 5 * DAY).toISOString()),
    message: /^memory bad-date-iso-string: meta\.createdAt: a string, not a BSON date: "2026-11-17T03:00/,
  },
  {
    // Unix seconds: read as milliseconds it is January 1970.
    memoryId: 'bad-date-number',
    change: (d) => (d.meta.createdAt = Math.floor((NOW.getTime() - 5 * DAY) / 1000)),
    message: /^memory bad-date-number: meta\.createdAt: a number, not a BSON date: 1794884400 \(seconds/,
  },
  {
    // Would sit out of every due scan until 2026-12-22 without anyone noticing.
    memoryId: 'bad-date-future',
    change: (d) => (d.meta.createdAt = new Date(NOW.getTime() + 30 * DAY)),
    message: /^memory bad-date-future: meta\.createdAt: 2026-12-22T03:00:00\.000Z is in the future/,
  },
  {
    memoryId: 'bad-stage',
    change: (d) => (d.meta.compressionStage = 'v9'),
    message: /^memory bad-stage: meta\.compressionStage: missing or unknown stage/,
  },
  {
    memoryId: 'bad-empty-text',
    change: (d) => (d.content.raw = ''),
    message: /^memory bad-empty-text: content\.raw: empty$/,
  },
  {
    memoryId: 'bad-empty-turns',
    change: (d) => (d.content.raw = []),
    message: /^memory bad-empty-turns: content\.raw: empty$/,
  },
  {
    memoryId: 'bad-binary-text',
    change: (d) => (d.content.raw = '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR'),
    message: /^memory bad-binary-text: content\.raw: contains control characters \(binary content\?\)$/,
  },
  {
    memoryId: 'bad-binary-turn',
    change: (d) => (d.content.raw = [{ role: 'user', text: 'see attached\u0000\u0001\u0002' }]),
    message: /^memory bad-binary-turn: content\.raw: contains control characters/,
  },
  {
    // Bytes stored as BSON binary instead of text.
    memoryId: 'bad-binary-bson',
    change: (d) => (d.content.raw = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff])),
    message: /^memory bad-binary-bson: content\.raw: expected a string or a list of \{ role, text \} turns$/,
  },
  {
    memoryId: 'bad-raw-type',
    change: (d) => (d.content.raw = 12345),
    message: /^memory bad-raw-type: content\.raw: expected a string or a list/,
  },
  {
    memoryId: 'bad-huge',
    change: (d) => (d.content.raw = 'x'.repeat(5 * 1024 * 1024)),
    message:
      /^memory bad-huge: content\.raw: 5242880 bytes is more than the maximum input size of 1000000 bytes$/,
  },
  {
    // Neither a Chinese nor an English memory of it would keep it as said (docs/design.md §4).
    memoryId: 'bad-language-korean',
    change: (d) =>
      (d.content.raw = [
        { role: 'user', text: '하나야, 오늘 할머니 장례식에 다녀왔어. 너무 슬퍼.' },
        { role: 'assistant', text: '정말 힘든 하루였겠다. 할머니와 어떤 추억이 제일 생각나?' },
      ]),
    message:
      /^memory bad-language-korean: content\.raw: written in Korean: memfade writes memories in Chinese and English only/,
  },
  {
    memoryId: 'bad-language-japanese',
    change: (d) =>
      (d.content.raw = '今日は祖母のお葬式に行ってきたよ。庭でトマトの育て方を教えてくれたんだ。'),
    message: /^memory bad-language-japanese: content\.raw: written in Japanese: /,
  },
  {
    memoryId: 'bad-key-topics',
    change: (d) => (d.content.processed = { summary: 'a trip', keyTopics: 'travel' }),
    message: /^memory bad-key-topics: content\.processed\.keyTopics: expected a list of strings$/,
  },
  {
    memoryId: 'bad-facts',
    change: (d) => (d.content.processed = { facts: 42 }),
    message: /^memory bad-facts: content\.processed\.facts: expected a list of strings$/,
  },
  {
    memoryId: 'bad-role-card',
    userId: 'user-bad-card',
    message: /^memory bad-role-card: roleCard\.personality: expected a string or a list of strings$/,
  },
  {
    // Kept as bad input (docs/design.md invariant 5): memfade does not invent a personality.
    memoryId: 'bad-no-role-card',
    userId: 'user-without-card',
    message:
      /^memory bad-no-role-card: roleCard: no role card for user user-without-card with partner companion$/,
  },
  {
    // A valid memory, not due (1 day old): what is bad is a job added around the typed enqueue.
    memoryId: 'bad-payload',
    change: (d) => (d.meta.createdAt = new Date(NOW.getTime() - DAY)),
    message: /^memory bad-payload: invalid compress payload: target: expected v1 or v2$/,
  },
];
const QUEUED_BY_THE_RUN = CASES.filter((c) => c.memoryId !== 'bad-payload');

function badDocument(c: BadCase): Doc {
  const doc = memoryDocument({
    memoryId: c.memoryId,
    userId: c.userId ?? 'demo-en-2',
    partnerId: 'companion',
    turns: [
      { role: 'user', text: 'I finally booked the trip to Lisbon for March, just the two of us.' },
      { role: 'assistant', text: 'That is wonderful news! What are you looking forward to most?' },
    ],
    createdAt: new Date(NOW.getTime() - 5 * DAY),
  }) as Doc;
  // Indexed when it was written: the vector outbox (a separate loop) has nothing to do with it, so
  // every write on the document after the run is the failed compression's.
  doc.vectorSync.pending = false;
  c.change?.(doc);
  return doc;
}

/**
 * A digest of the BSON bytes (through the driver the services use): equal digests mean equal
 * types, values and key order, and comparing 5 MB buffers element by element would take minutes.
 */
function bsonDigest(value: Doc): string {
  const bytes = harness.services.models.memories.base.mongo.BSON.serialize(value);
  return createHash('sha256').update(bytes).digest('hex');
}

/** The document minus what recording a failure may change: compression.lastError and rev. */
function withoutFailureRecord(doc: Doc): Doc {
  const { rev: _rev, ...rest } = structuredClone(doc);
  if (rest.compression) delete rest.compression.lastError;
  return rest;
}

let harness: Harness;

describe('bad input: each kind fails alone in one nightly run', () => {
  let data: ReturnType<typeof generateDemoData>;
  const before = new Map<string, Doc>();

  beforeAll(async () => {
    harness = await startHarness({ now: NOW, config: { policy: stagePolicy({ maxInputBytes: 1_000_000 }) } });
    const { models, queues } = harness.services;
    data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(models, [...data.memories, ...CASES.map(badDocument)], data.roleCards);
    await models.roleCards.create({ userId: 'user-bad-card', name: 'Sam', personality: 42 });
    // The state the run starts from, as stored (the driver's encoding included).
    for (const c of CASES)
      before.set(c.memoryId, (await models.memories.findOne({ memoryId: c.memoryId }).lean())!);

    const workers = startWorkerRole(harness.services);
    await enqueueRun(harness.services, { runId: RUN_ID, trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, RUN_ID, { timeoutMs: 60_000 });
    // Added around enqueueCompress, naming the run, as a buggy script or another service would.
    const rogue = await queues.compress.add(
      'job',
      { runId: RUN_ID, memoryId: 'bad-payload', target: 'v3' } as never,
      {
        jobId: 'rogue-payload',
      },
    );
    for (let i = 0; (await rogue.getState()) !== 'failed'; i++) {
      if (i > 100) throw new Error('the rogue job did not fail');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await workers.close();
  }, 120_000);

  afterAll(async () => harness?.close());

  it.each(CASES)(
    '$memoryId: the reason names the memory and the field, on the document and in the run',
    async (c) => {
      const doc = (await harness.services.models.memories.findOne({ memoryId: c.memoryId }).lean()) as Doc;
      expect(doc.compression.lastError).toMatchObject({ stage: 'input', attempts: 1, at: NOW });
      expect(doc.compression.lastError.message).toMatch(c.message);
      const run = await harness.services.runs.get(RUN_ID);
      const recorded = run?.errors.filter((e) => e.memoryId === c.memoryId) ?? [];
      expect(recorded.map((e) => e.message)).toEqual([doc.compression.lastError.message]);
    },
  );

  it.each(CASES)(
    '$memoryId: nothing but lastError and rev (+1) is written, content byte-identical',
    async (c) => {
      const original = before.get(c.memoryId)!;
      const doc = (await harness.services.models.memories.findOne({ memoryId: c.memoryId }).lean()) as Doc;
      expect(doc.rev).toBe(original.rev + 1);
      expect(withoutFailureRecord(doc)).toEqual(withoutFailureRecord(original));
      // Byte for byte as BSON, so a changed type or key order would show too.
      expect(bsonDigest(withoutFailureRecord(doc))).toEqual(bsonDigest(withoutFailureRecord(original)));
      expect(bsonDigest(doc.content)).toEqual(bsonDigest(original.content));
    },
  );

  it('fails each job once, for good (no retry can fix bad input)', async () => {
    const { queues } = harness.services;
    for (const c of [...QUEUED_BY_THE_RUN.map((q) => compressJobId(q.memoryId, 'v1')), 'rogue-payload']) {
      const job = await queues.compress.getJob(c);
      expect(await job?.getState(), c).toBe('failed');
      expect(job?.attemptsMade, c).toBe(1);
    }
  });

  it('counts the run-enqueued failures and completes every good memory of the same run', async () => {
    const { models, runs } = harness.services;
    const run = (await runs.get(RUN_ID))!;
    const due = data.memories.filter(
      (m) => (m.meta as { createdAt: Date }).createdAt.getTime() <= NOW.getTime() - 3 * DAY,
    );
    // The rogue job was not enqueued by the run: listed in its errors, not counted as its job.
    expect(run.counts).toMatchObject({
      enqueued: due.length + QUEUED_BY_THE_RUN.length,
      processed: due.length + QUEUED_BY_THE_RUN.length,
      failed: QUEUED_BY_THE_RUN.length,
    });
    expect(run.errors).toHaveLength(CASES.length);
    expect(run.finishedAt).toBeInstanceOf(Date);
    const good = await models.memories.find({ memoryId: { $regex: '^demo-' } }).lean();
    const advanced = good.filter((d) => ['v1', 'v2'].includes((d as Doc).meta.compressionStage));
    expect(advanced.map((d) => d.memoryId).sort()).toEqual(due.map((m) => m.memoryId).sort());
    expect(good.filter((d) => (d as Doc).compression?.lastError)).toEqual([]);
  });

  it('keeps memory text out of every error message: the run history, the memories and the failed jobs', async () => {
    const { models, runs, queues } = harness.services;
    // Text of the bad memories (the shared conversation, the summary, the binary and huge ones).
    const texts = [
      'booked the trip to Lisbon',
      'looking forward to most',
      'a trip',
      'see attached',
      'IHDR',
      'xxxxxxxx',
    ];
    const run = (await runs.get(RUN_ID))!;
    const docs = (await models.memories
      .find({ memoryId: { $in: CASES.map((c) => c.memoryId) } })
      .lean()) as Doc[];
    const failed = await queues.compress.getFailed();
    const messages = [
      ...run.errors.map((e) => e.message),
      ...docs.map((d) => d.compression.lastError.message as string),
      ...failed.map((job) => job.failedReason),
    ];
    expect(messages).toHaveLength(3 * CASES.length);
    for (const message of messages) for (const text of texts) expect(message).not.toContain(text);
  });

  // Last: it changes the outbox fields the tests above compare.
  it('the vector sync embeds none of them, not even the huge one, and removes a record made before', async () => {
    const { models, store, vectors, embedder } = harness.services;
    const ids = CASES.map((c) => c.memoryId);
    const [vector] = await embedder.embed(['what bad-huge said before the product broke it']);
    const earlier = {
      id: 'bad-huge',
      userId: 'demo-en-2',
      partnerId: 'companion',
      stage: 'raw' as const,
      text: 'what bad-huge said before the product broke it',
      vector: vector!,
      embeddingModel: embedder.model,
      updatedAt: NOW,
      rev: 0,
    };
    await vectors.upsert([earlier]);
    await models.memories.updateMany({ memoryId: { $in: ids } }, { $set: { 'vectorSync.pending': true } });
    const embedded: string[] = [];
    const syncer = new VectorSyncer({
      models,
      memories: store,
      embedder: {
        model: embedder.model,
        dimensions: embedder.dimensions,
        embed: (texts) => {
          embedded.push(...texts);
          return embedder.embed(texts);
        },
      },
      store: vectors,
      logger: createLogger({ level: 'silent' }),
      batchSize: 256,
      now: () => NOW,
      policy: harness.config.policy,
    });
    await syncer.drain();
    expect(embedded).toEqual([]);
    expect(await vectors.get(ids)).toEqual([]);
    expect(await models.memories.countDocuments({ memoryId: { $in: ids }, 'vectorSync.pending': true })).toBe(
      0,
    );
  });
});
