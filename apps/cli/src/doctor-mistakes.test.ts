import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeMongo, connectMongo } from '@memfade/db';
import { childEnv, runScript, tempDir, uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DAY = 86_400_000;
const NOW = Date.now();

/**
 * The mistakes a team makes adopting memfade on a product it did not design for it (issue 28):
 * a product with chats in `chats` (`owner`, `persona_id`, epoch-second dates, `messages: [{ from,
 * body }]`) and persona cards in `characters`. `memfade doctor` (the built CLI) on a database seeded
 * with each mistake, and the commands that open the database with one of them present.
 */
const mappingYaml = (options: { format: string; key: string }) => `
collections: { memories: chats, roleCards: characters }
memory:
  id: chat_id
  userId: owner
  partnerId: persona_id
  createdAt: { path: started, format: ${options.format} }
  conversation:
    path: messages
    turns: { role: from, text: body, roles: { me: user, bot: assistant } }
roleCard:
  key: ${options.key}
  updatedAt: updated
  name: display_name
  personality: traits
  language: lang
writes: { prefix: memfade }
`;

const seconds = (ageDays: number) => Math.floor((NOW - ageDays * DAY) / 1000);

/** A chat of 4 days (due for V1 tonight), its date in epoch seconds unless given. */
const chat = (chatId: string, owner: string, persona: string, extra: Record<string, unknown> = {}) => ({
  chat_id: chatId,
  owner,
  persona_id: persona,
  started: seconds(4),
  messages: [
    { from: 'me', body: 'We finally planted the apple tree in the back garden this morning, in the rain.' },
    { from: 'bot', body: 'In the rain! That sounds like a day you will remember. Who helped you dig?' },
    { from: 'me', body: 'My sister came over, and we argued the whole time about where it should go.' },
  ],
  ...extra,
});

const systemTurn = { from: 'system', body: 'The user switched to the mobile app.' };

describe('memfade doctor on the mistakes of an adoption', () => {
  let files: Awaited<ReturnType<typeof tempDir>>;
  let mongo: Connection;
  const env = (db: string, mapping: string) =>
    childEnv({
      REDIS_URL: inject('redisUrl'),
      MONGODB_URI: workerMongoUri(inject('mongoUris')),
      MONGODB_DB: db,
      MEMFADE_QUEUE_PREFIX: uniqueName('q'),
      MEMFADE_MAPPING: mapping,
      LANCEDB_DIR: '/nonexistent/memfade-lancedb',
      MEMFADE_PROVIDER: 'offline',
      LOG_LEVEL: 'warn',
    });
  const run = (db: string, mapping: string, args: string[]) =>
    runScript(cli, args, { env: env(db, mapping) });
  const doctor = async (db: string, mapping: string, extra: string[] = []) => {
    const { code, stdout, stderr } = await run(db, mapping, ['doctor', '--json', ...extra]);
    if (!stdout.trim().startsWith('{')) throw new Error(`doctor wrote no report (exit ${code}): ${stderr}`);
    return { code, report: JSON.parse(stdout) as Record<string, any> };
  };
  /** A database of its own, seeded through the driver as the product would write it. */
  const seed = async (chats: Record<string, unknown>[], cards: Record<string, unknown>[]) => {
    const db = uniqueName('db');
    const database = mongo.getClient().db(db);
    await database.collection('chats').insertMany(chats);
    if (cards.length) await database.collection('characters').insertMany(cards as never[]);
    return { db, database };
  };
  const mappingFile = async (name: string, options: { format: string; key: string }) => {
    const file = join(files.dir, `${name}.yaml`);
    await writeFile(file, mappingYaml(options));
    return file;
  };
  const indexNames = async (db: string, collection: string) =>
    (await mongo.getClient().db(db).collection(collection).indexes()).map((i) => i.name).sort();

  beforeAll(async () => {
    files = await tempDir('memfade-doctor-');
    mongo = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  });
  afterAll(async () => {
    await closeMongo(mongo);
    await files.remove();
  });

  describe('one user with two persona cards, cards keyed by user (issue 28 item 1)', () => {
    let db: string;
    let mapping: string;
    beforeAll(async () => {
      ({ db } = await seed(
        [chat('c1', 'u1', 'ann'), chat('c2', 'u1', 'bo'), chat('c3', 'u2', 'ann')],
        [
          {
            _id: 'card-u1-bo',
            owner: 'u1',
            display_name: 'Bo',
            lang: 'en',
            updated: new Date(NOW - 9 * DAY),
          },
          { _id: 'card-u1-ann', owner: 'u1', display_name: 'Ann', lang: 'en', updated: new Date(NOW - DAY) },
          { _id: 'card-u2', owner: 'u2', display_name: 'Ann', lang: 'en' },
        ],
      ));
      mapping = await mappingFile('by-user', { format: 'epoch-seconds', key: 'owner' });
    });

    it('doctor names the duplicate key, its cards and the one memfade uses; not an error', async () => {
      const { code, report } = await doctor(db, mapping);
      expect(report.roleCards.duplicates).toEqual({
        total: 1,
        keys: [{ key: { owner: 'u1' }, ids: ['card-u1-ann', 'card-u1-bo'], count: 2 }],
      });
      expect(report.warnings).toContainEqual(
        expect.stringMatching(
          /2 role cards with one key \{"owner":"u1"\} in characters: card-u1-ann, card-u1-bo; memfade uses card-u1-ann/,
        ),
      );
      expect(report.errors).toEqual([]);
      expect(code).toBe(0);
    });

    it('a command that opens the database works, and creates no index on the product collections', async () => {
      const status = await run(db, mapping, ['status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stderr).not.toMatch(/E11000/);
      expect(await indexNames(db, 'chats')).toEqual(['_id_']);
      expect(await indexNames(db, 'characters')).toEqual(['_id_']);
      // memfade's own collections get theirs at open.
      expect(await indexNames(db, 'compression_runs')).toContain('run_id');
    });

    it('doctor lists the missing indexes with their command and cost; --create-indexes creates them, none unique', async () => {
      const before = await doctor(db, mapping);
      const dueScan = before.report.indexes.find((i: { name: string }) => i.name === 'due_scan');
      expect(dueScan).toMatchObject({ collection: 'chats', owner: 'product', present: false });
      expect(dueScan.command).toBe(
        'db.getCollection("chats").createIndex({"memfade.stage":1,"started":1}, {"name":"due_scan"})',
      );
      expect(dueScan.withoutIt).toMatch(/each run's due scan \(and status\) is a scan of all 3 documents/);
      expect(before.report.warnings).toContainEqual(
        expect.stringMatching(
          /^index due_scan missing on chats: memfade works without it, slower: .*run memfade doctor --create-indexes/,
        ),
      );
      const created = await doctor(db, mapping, ['--create-indexes']);
      expect(created.code).toBe(0);
      expect(created.report.created).toEqual(
        expect.arrayContaining([
          { collection: 'chats', name: 'due_scan' },
          { collection: 'chats', name: 'memory_id' },
          { collection: 'characters', name: 'memfade_role_card' },
        ]),
      );
      expect(created.report.indexes.filter((i: { present: boolean }) => !i.present)).toEqual([]);
      const indexes = await mongo.getClient().db(db).collection('characters').indexes();
      expect(indexes.find((i) => i.name === 'memfade_role_card')).toMatchObject({ key: { owner: 1 } });
      expect(indexes.filter((i) => i.unique && i.name !== '_id_')).toEqual([]);
    });
  });

  describe('cards keyed by user and partner, one refused, roles the mapping does not map', () => {
    let result: Awaited<ReturnType<typeof doctor>>;
    beforeAll(async () => {
      const { db } = await seed(
        [
          chat('ann-1', 'u1', 'ann', {
            messages: [...chat('x', 'u1', 'ann').messages, systemTurn, systemTurn],
          }),
          chat('ann-2', 'u1', 'ann'),
          chat('bo-1', 'u1', 'bo', { messages: [systemTurn, ...chat('x', 'u1', 'bo').messages] }),
          chat('bo-2', 'u1', 'bo'),
          chat('zh-1', 'u2', 'ann'),
          chat('zh-2', 'u2', 'ann'),
          chat('nocard-1', 'u3', 'ann'),
        ],
        [
          { _id: 'card-u1-ann', owner: 'u1', persona_id: 'ann', display_name: 'Ann', lang: 'en' },
          { _id: 'card-u1-bo', owner: 'u1', persona_id: 'bo', display_name: 'Bo', lang: 'en' },
          { _id: 'card-u2-ann', owner: 'u2', persona_id: 'ann', display_name: '安', lang: 'zh-CN' },
          { _id: 'card-u9-zed', owner: 'u9', persona_id: 'zed', display_name: 'Zed' },
          { _id: 'card-u9-yen', owner: 'u9', persona_id: 'yen', display_name: 'Yen' },
        ],
      );
      const mapping = await mappingFile('by-partner', {
        format: 'epoch-seconds',
        key: '{ userId: owner, partnerId: persona_id }',
      });
      result = await doctor(db, mapping);
    });

    it('counts the cards apart from the memories: 5 in the collection, 3 used, one user with two', () => {
      expect(result.report.roleCards).toMatchObject({
        collection: 'characters',
        keyedBy: 'user (owner) and partner (persona_id)',
        documents: 5,
        used: 3,
        invalid: 1,
        memories: { withCard: 4, missing: 1, invalid: 2 },
        duplicates: { total: 0, keys: [] },
      });
    });

    it('names the refused card field, its value, what is expected and what memfade does', () => {
      expect(result.report.roleCards.problems).toEqual([
        {
          field: 'lang',
          key: 'mapping.roleCard.language',
          value: '"zh-CN"',
          expected: 'expected zh or en',
          cards: 1,
          memories: 2,
          example: 'card-u2-ann',
        },
      ]);
      expect(result.report.warnings).toContainEqual(
        'role card field lang (mapping.roleCard.language) is "zh-CN": expected zh or en, in 1 card used by 2 sampled memories (e.g. card card-u2-ann); memfade fails each memory of such a card as bad input (its reason recorded, nothing written) until the card is fixed',
      );
    });

    it('reports the conversation roles the mapping does not map, with counts and what memfade does', () => {
      expect(result.report.unmappedRoles).toEqual([
        { role: 'system', turns: 3, memories: 2, example: 'ann-1' },
      ]);
      expect(result.report.warnings).toContainEqual(
        expect.stringMatching(
          /^conversation role "system" is not mapped to user or assistant: 3 turns in 2 of 7 sampled memories \(e\.g\. ann-1\); memfade compresses these turns with the rest/,
        ),
      );
      expect(result.report.errors).toEqual([]);
      expect(result.code).toBe(0);
    });
  });

  // A retried insert: the worker refuses both copies (docs/design.md §3); doctor says so before the night.
  it('a memory inserted twice: both copies counted as bad input naming the id field', async () => {
    const { db } = await seed(
      [chat('twice', 'u1', 'ann'), chat('twice', 'u1', 'ann'), chat('once', 'u1', 'ann')],
      [{ owner: 'u1', display_name: 'Ann', lang: 'en' }],
    );
    const mapping = await mappingFile('twice', { format: 'epoch-seconds', key: 'owner' });
    const { report } = await doctor(db, mapping);
    expect(report.badInput).toEqual([
      expect.objectContaining({
        field: 'chat_id',
        count: 2,
        example: 'twice',
        message:
          'memory twice: chat_id: more than one document has this id: memfade writes to none of them until one is left',
      }),
    ]);
  });

  describe('creation dates in the wrong unit (issue 28 item 3)', () => {
    it('epoch seconds mapped as epoch-millis: 1970, refused with the mistake named', async () => {
      const { db } = await seed(
        [chat('s1', 'u1', 'ann'), chat('s2', 'u1', 'ann', { started: seconds(30) })],
        [{ owner: 'u1', display_name: 'Ann', lang: 'en' }],
      );
      const mapping = await mappingFile('seconds-as-millis', { format: 'epoch-millis', key: 'owner' });
      const { code, report } = await doctor(db, mapping);
      expect(report.dates).toMatchObject({
        collection: 'chats',
        field: 'started',
        format: 'epoch-millis',
        dated: 2,
      });
      expect(report.dates.oldest.date).toMatch(/^1970-01-/);
      expect(report.dates.oldest).toMatchObject({ id: 's2', stored: seconds(30) });
      expect(report.dates.before2000).toBe(2);
      expect(report.errors).toEqual([
        expect.stringMatching(
          /^mapping\.memory\.createdAt \(started, epoch-millis\): 2 of 2 memories are dated before 2000, the oldest 1970-01-.*the values are epoch seconds mapped as epoch-millis: set mapping\.memory\.createdAt\.format: epoch-seconds\. As mapped, each is due tonight/,
        ),
      ]);
      expect(code).toBe(1);
    });

    it('epoch milliseconds mapped as epoch-seconds: far future, refused with the mistake named', async () => {
      const millis = (ageDays: number) => NOW - ageDays * DAY;
      const { db } = await seed(
        [chat('m1', 'u1', 'ann', { started: millis(4) })],
        [{ owner: 'u1', display_name: 'Ann', lang: 'en' }],
      );
      const mapping = await mappingFile('millis-as-seconds', { format: 'epoch-seconds', key: 'owner' });
      const { code, report } = await doctor(db, mapping);
      expect(report.dates.future).toBe(1);
      expect(report.errors).toEqual([
        expect.stringMatching(
          /more than a day ahead.*the values are epoch milliseconds mapped as epoch-seconds: set mapping\.memory\.createdAt\.format: epoch-millis\. As mapped, each fails as bad input/,
        ),
      ]);
      expect(code).toBe(1);
    });

    it('shows the oldest and newest creation date when they are right', async () => {
      const { db } = await seed(
        [chat('r1', 'u1', 'ann', { started: seconds(10) }), chat('r2', 'u1', 'ann')],
        [{ owner: 'u1', display_name: 'Ann', lang: 'en' }],
      );
      const mapping = await mappingFile('right', { format: 'epoch-seconds', key: 'owner' });
      // What an earlier memfade left on the cards: a unique index, which refuses a second persona.
      await mongo
        .getClient()
        .db(db)
        .collection('characters')
        .createIndex({ owner: 1 }, { unique: true, name: 'user' });
      const text = await run(db, mapping, ['doctor']);
      const iso = (ageDays: number) => new Date(seconds(ageDays) * 1000).toISOString();
      expect(text.stdout).toContain(
        `created (chats.started, epoch-seconds): oldest ${iso(10)} (r1), newest ${iso(4)} (r2); 0 before 2000, 0 more than a day ahead`,
      );
      expect(text.stdout).toContain(
        'role cards: 1 in characters, keyed by user (owner); the sampled memories use 1 (0 invalid)',
      );
      expect(text.stdout).toContain(
        'warning: index user on characters is unique (an earlier memfade made it so): MongoDB refuses a second document with the same owner',
      );
      expect(text.stdout).toContain('db.getCollection("characters").dropIndex("user")');
      expect(text.code).toBe(0);
    });
  });
});
