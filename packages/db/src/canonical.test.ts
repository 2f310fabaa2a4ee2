import { parseMemory, sourceHash, stagePolicy, type Turn } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { canonical } from './canonical.js';
import { DATE_FORMATS, type DateFormat, parseMapping } from './mapping.js';

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

  it('an unreadable time is bad input naming the conversation', () => {
    expect(() => parseMemory(canonical(doc('next tuesday'), mappingFor()), policy)).toThrow(
      /memory m1: content\.raw: /,
    );
  });
});
