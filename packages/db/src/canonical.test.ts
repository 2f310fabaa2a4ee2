import { parseMemory, productNamed, sourceHash, stagePolicy, type Turn } from '@memfade/core';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { canonical } from './canonical.js';
import { DATE_FORMATS, type DateFormat, parseMapping } from './mapping.js';
import { productFieldName } from './product-field-name.js';

const AT = new Date('2026-11-20T08:30:15.000Z');
const policy = stagePolicy();

/** One instant as a product may store it. */
const stored: Record<DateFormat, Date | string | number> = {
  date: AT,
  iso: '2026-11-20T16:30:15+08:00',
  'epoch-seconds': AT.getTime() / 1000,
  'epoch-millis': AT.getTime(),
};

const mappingFor = (atFormat?: DateFormat) =>
  parseMapping({
    memory: {
      id: '_id',
      createdAt: { path: 'created' },
      conversation: { path: 'messages', turns: { at: 'ts', ...(atFormat && { atFormat }) } },
    },
  });

const doc = (ts: unknown) => ({
  _id: 'm1',
  userId: 'u1',
  created: AT,
  messages: [
    { role: 'user', text: 'We moved the piano on Saturday.', ts },
    { role: 'assistant', text: 'That sounds like a lot of work!', ts },
  ],
});

// docs/design.md invariant 7: one canonical form of a memory's text, whatever the product stores.
describe("canonical(): a turn's time", () => {
  it.each(DATE_FORMATS)(
    'stored as %s (declared) reads as the instant, and hashes as every other encoding',
    (format) => {
      const memory = parseMemory(canonical(doc(stored[format]), mappingFor(format)), policy);
      expect((memory.content.raw as Turn[]).map((turn) => turn.at)).toEqual([AT, AT]);
      const asDate = parseMemory(canonical(doc(AT), mappingFor('date')), policy);
      expect(sourceHash(memory)).toBe(sourceHash(asDate));
    },
  );

  it('undeclared: a BSON date, an ISO string or epoch milliseconds, each read as the instant', () => {
    for (const value of [AT, stored.iso, stored['epoch-millis']]) {
      const memory = canonical(doc(value), mappingFor());
      expect(((memory.content as { raw: Turn[] }).raw[0]!.at as Date).getTime()).toBe(AT.getTime());
    }
  });

  it('an unreadable time is bad input naming the turn and its time', () => {
    expect(() => parseMemory(canonical(doc('next tuesday'), mappingFor()), policy)).toThrow(
      'memory m1: content.raw.0.at: not a readable time',
    );
  });
});

// A bad input error sends the operator to the field in their own documents (docs/design.md §3).
describe('productFieldName(): a refused field as the product names it', () => {
  const mapping = parseMapping({
    memory: {
      id: 'memory_id',
      userId: 'uid',
      createdAt: { path: 'created_at' },
      conversation: { path: 'messages', turns: { role: 'sender', text: 'content', at: 'ts' } },
    },
  });
  const refused = (change: (d: Record<string, any>) => void, m = mapping) => {
    const d: Record<string, any> = {
      memory_id: 'm1',
      uid: 'u1',
      created_at: AT,
      messages: [
        { sender: 'user', content: 'We moved the piano on Saturday.' },
        { sender: 'assistant', content: 'That sounds like a lot of work!' },
      ],
    };
    change(d);
    try {
      parseMemory(canonical(d, m), policy);
    } catch (error) {
      return (productNamed(error, (field) => productFieldName(m, field)) as Error).message;
    }
    return 'accepted';
  };

  it("names the mapping's paths and the turns' keys, and the memory", () => {
    expect(refused((d) => (d.messages[1].content = 42))).toBe(
      'memory m1: messages.1.content: expected a string',
    );
    expect(refused((d) => delete d.messages[0].sender)).toMatch(/^memory m1: messages\.0\.sender: /);
    expect(refused((d) => (d.messages[1].ts = 'at noon'))).toMatch(/^memory m1: messages\.1\.ts: /);
    expect(refused((d) => (d.messages = []))).toBe('memory m1: messages: empty');
    expect(refused((d) => delete d.uid)).toMatch(/^memory m1: uid: /);
    expect(refused((d) => (d.created_at = 'yesterday'))).toMatch(/^memory m1: created_at: /);
  });

  it('names a joined turn by its collection and place', () => {
    const joined = parseMapping({
      memory: {
        conversation: { collection: 'chat_turns', memoryId: 'mid', order: 'seq', turns: { text: 'body' } },
      },
    });
    expect(productFieldName(joined, 'content.raw.2.text')).toBe('chat_turns[2].body');
    expect(productFieldName(joined, 'content.raw')).toBe('chat_turns');
    // A role card's field at the path the mapping reads it from.
    const cards = parseMapping({ roleCard: { key: '用户', personality: '性格' } });
    expect(productFieldName(cards, 'roleCard.personality')).toBe('roleCard.性格');
    expect(productFieldName(cards, 'roleCard.hobbies')).toBe('roleCard.hobbies');
    // Without a mapping every name is memfade's own.
    const own = parseMapping({});
    for (const field of ['content.raw.2.text', 'meta.createdAt', 'userId', 'roleCard.personality'])
      expect(productFieldName(own, field)).toBe(field);
  });
});

// A product that stores who sent each turn by id (docs/mapping.md `roles`).
describe('canonical(): turns whose sender is an id', () => {
  const mapping = (roles: Record<string, string>) =>
    parseMapping({
      memory: {
        id: '_id',
        userId: 'uid',
        partnerId: 'pid',
        createdAt: { path: 'created' },
        conversation: { path: 'messages', turns: { role: 'from', text: 'body', roles } },
      },
    });
  const user = new Types.ObjectId();
  const persona = 7;
  const doc = {
    _id: 'm1',
    uid: user,
    pid: persona,
    created: AT,
    messages: [
      { from: user, body: 'My knee hurts again.' },
      { from: persona, body: 'Oh no, the left one?' },
      { from: 'u-999', body: 'Hi, I am her brother.' },
    ],
  };
  const roles = (m: ReturnType<typeof mapping>) =>
    (canonical(doc, m) as unknown as { content: { raw: { role: unknown }[] } }).content.raw.map(
      (t) => t.role,
    );

  it("reads the memory's own user and partner ids as the roles `$userId` and `$partnerId` name", () => {
    expect(roles(mapping({ $userId: 'user', $partnerId: 'assistant' }))).toEqual([
      'user',
      'assistant',
      'u-999',
    ]);
    const parsed = parseMemory(canonical(doc, mapping({ $userId: 'user', $partnerId: 'assistant' })), policy);
    expect(parsed.content.raw).toMatchObject([{ role: 'user' }, { role: 'assistant' }, { role: 'u-999' }]);
  });

  it('reads only the map\'s own keys: a speaker named "constructor" stays that name', () => {
    const named = { ...doc, messages: [{ from: 'constructor', body: 'Hello.' }, ...doc.messages] };
    const read = canonical(named, mapping({ $userId: 'user' })) as unknown as {
      content: { raw: { role: unknown }[] };
    };
    expect(read.content.raw[0]!.role).toBe('constructor');
  });

  it('maps a number by its text, and leaves an id no role names as found (refused, the field named)', () => {
    expect(roles(mapping({ '7': 'assistant' }))).toEqual([user, 'assistant', 'u-999']);
    expect(() => parseMemory(canonical(doc, mapping({})), policy)).toThrow(/content\.raw\.0\.role/);
  });
});
