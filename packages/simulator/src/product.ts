import type { Rng } from '@memfade/core';
import { type ChatShape, drawChat } from '@memfade/eval';
import { generateDemoData } from '@memfade/samples';

/**
 * A product the simulator builds for one seed: how it stores memories (memfade's own field names,
 * or foreign names with memfade writing beside them, under a prefix, or in a side collection), how
 * it encodes dates (at the memory and per turn), whether its documents hold fields that share
 * memfade's names, strings and turn lists, zh and en, users with several personas and some role
 * cards missing. The checker knows what each memory should become from `memories`.
 */
export type Shape = 'own' | 'inline' | 'prefix' | 'side';
export type DateFormat = 'date' | 'iso' | 'epoch-seconds' | 'epoch-millis';

export interface SimMemory {
  id: string;
  userId: string;
  partnerId: string;
  createdAt: Date;
  /** Its role card exists (else it must fail, naming the user and persona). */
  hasCard: boolean;
  /** Its role card exists with a field written wrong (`personality` a number): it must fail naming it. */
  badCard?: boolean;
  /** A field memfade would write holds the product's own value here (else undefined). */
  collidesAt?: string;
  /** The product wrote this memory wrong (spoilAMemory): it must fail naming `field`, nothing written. */
  spoiled?: { kind: Spoil; field: string; says?: string };
  /** Written in traditional Chinese characters (writeSomeInTraditional): its stages must be too. */
  traditional?: boolean;
  /** A word only this memory says: searched for everywhere when its user is forgotten. */
  marker: string;
}

export interface Product {
  shape: Shape;
  createdAtFormat: DateFormat;
  turnAt: DateFormat | 'none';
  /** The mapping file's content (undefined: memfade's own field names, no mapping file). */
  mapping?: Record<string, unknown>;
  /**
   * Turn times written without a zone (writeTimesWithoutZone), and the time zones the workers and the
   * CLI then run in: each must read them as the same instants.
   */
  timeZones?: { workers: string; cli: string };
  /**
   * How the product stores a memory's id, by the id memfade reports (storeIdsAsTheyCome: an
   * integer); undefined: as the string itself.
   */
  storedIds?: Map<string, unknown>;
  /** Each turn's sender is its speaker's id, the mapping's roles naming `$userId` and `$partnerId` (sendTurnsById). */
  sendersById?: boolean;
  collection: string;
  /** The field holding the memory id. */
  idField: string;
  docs: Record<string, unknown>[];
  cards: Record<string, unknown>[];
  memories: SimMemory[];
}

const DAY = 86_400_000;
/** Fields memfade writes beside the product's when the mapping has no prefix (docs/mapping.md). */
const MEMFADE_NAMED = ['rev', 'compression', 'vectorSync', 'meta.compressedAt'] as const;

export function encodeDate(date: Date, format: DateFormat): unknown {
  if (format === 'iso') return date.toISOString();
  if (format === 'epoch-seconds') return Math.floor(date.getTime() / 1000);
  if (format === 'epoch-millis') return date.getTime();
  return date;
}

interface DemoMemory {
  memoryId: string;
  userId: string;
  content: { raw: { role: string; text: string }[] };
  meta: { createdAt: Date };
}

/** The share of a product's conversations drawn from the chat fuzz, and the shapes drawn (not its long ones). */
const FUZZ_SHARE = 0.25;
const FUZZ_SHAPES: ChatShape[] = ['turns', 'bilingual', 'repeats', 'blankTurns', 'garnished'];

/**
 * A conversation nobody wrote, now and then (the chat fuzz's: odd labels, both languages, markdown,
 * invisible characters, text written to steer a model), else the demo's; `chats` draws it.
 */
function conversation(source: DemoMemory, chats: Rng, foreign: boolean): { role: string; text: string }[] {
  if (!chats.chance(FUZZ_SHARE)) return source.content.raw;
  const drawn = drawChat(chats.next, chats.pick(FUZZ_SHAPES), chats.pick(['zh', 'en'] as const));
  const turns = drawn.raw as { role: string; text: string }[];
  // A foreign product stores who spoke as its own two words (foreignDoc): the user opens, turns alternate.
  return foreign ? turns.map((t, i) => ({ ...t, role: i % 2 === 0 ? 'user' : 'assistant' })) : turns;
}

export function buildProduct(random: Rng, now: Date, chats: Rng): Product {
  const shape = random.pick(['own', 'inline', 'prefix', 'side'] as const);
  const foreign = shape !== 'own';
  const createdAtFormat = foreign
    ? random.pick(['date', 'iso', 'epoch-seconds', 'epoch-millis'] as const)
    : 'date';
  const turnAt = random.pick(['none', 'date', 'iso', 'epoch-seconds', 'epoch-millis'] as const);
  const stringShare = random.pick([0, 0, 0.3]);
  const collideShare = shape === 'inline' ? random.pick([0, 0.3]) : 0;
  // Now and then a larger product: its producer takes long enough to be killed while it holds memories.
  const users = random.chance(0.15) ? random.int(12, 20) : random.int(2, 4);
  const demo = generateDemoData({ now, users, seed: random.int(1, 1_000_000) });
  const memories: SimMemory[] = [];
  const docs: Record<string, unknown>[] = [];
  const twoPersonas = new Set(
    demo.roleCards.filter(() => random.chance(0.3)).map((card) => String(card.userId)),
  );
  const cards: Record<string, unknown>[] = [];
  const missingCards = new Set<string>();
  for (const card of demo.roleCards) {
    const userId = String(card.userId);
    const personas = twoPersonas.has(userId) ? ['companion', 'p2'] : ['companion'];
    for (const partnerId of personas) {
      // A missing card is the product's mistake: those memories must fail, named.
      if (random.chance(0.1)) missingCards.add(`${userId}/${partnerId}`);
      else cards.push({ ...card, partnerId, name: partnerId === 'p2' ? `${card.name}二` : card.name });
    }
  }
  for (const [i, source] of (demo.memories as unknown as DemoMemory[]).entries()) {
    const partnerId = twoPersonas.has(source.userId) && i % 2 === 1 ? 'p2' : 'companion';
    const id = `${source.memoryId}-${partnerId}`;
    const marker = `mk${i}x${random.int(1000, 9999)}`;
    const createdAt = source.meta.createdAt;
    const said = conversation(source, chats, foreign);
    const turns = said.map((turn, t) => ({
      ...turn,
      text: t === said.length - 1 && said.length > 2 ? `${turn.text} ${marker}` : turn.text,
      at: new Date(createdAt.getTime() + t * 60_000),
    }));
    const asString = random.chance(stringShare);
    const collidesAt = random.chance(collideShare) ? random.pick(MEMFADE_NAMED) : undefined;
    const hasCard = !missingCards.has(`${source.userId}/${partnerId}`);
    memories.push({
      id,
      userId: source.userId,
      partnerId,
      createdAt,
      hasCard,
      marker,
      ...(collidesAt && { collidesAt }),
    });
    docs.push(
      foreign
        ? foreignDoc(
            { id, userId: source.userId, partnerId, createdAt, turns, asString, collidesAt },
            createdAtFormat,
            turnAt,
          )
        : ownDoc({ id, userId: source.userId, partnerId, createdAt, turns, asString }, turnAt),
    );
  }
  const mapping = foreign
    ? foreignMapping(shape, createdAtFormat, twoPersonas.size > 0)
    : twoPersonas.size > 0
      ? { roleCard: { key: { userId: 'userId', partnerId: 'partnerId' } } }
      : undefined;
  return {
    shape,
    createdAtFormat,
    turnAt,
    ...(mapping && { mapping }),
    collection: foreign ? 'chat_memories' : 'memories',
    idField: foreign ? 'memory_id' : 'memoryId',
    docs,
    cards: twoPersonas.size > 0 ? cards : cards.map(({ partnerId: _p, ...card }) => card),
    memories,
  };
}

interface Source {
  id: string;
  userId: string;
  partnerId: string;
  createdAt: Date;
  turns: { role: string; text: string; at: Date }[];
  asString: boolean;
  collidesAt?: string;
}

function ownDoc(m: Source, turnAt: DateFormat | 'none'): Record<string, unknown> {
  const raw = m.asString
    ? m.turns.map((t) => t.text).join('\n')
    : m.turns.map(({ role, text, at }) => ({
        role,
        text,
        ...(turnAt !== 'none' && { at: encodeDate(at, turnAt) }),
      }));
  return {
    memoryId: m.id,
    userId: m.userId,
    partnerId: m.partnerId,
    content: { raw },
    meta: { createdAt: m.createdAt, compressionStage: 'raw' },
    vectorSync: { pending: false },
    rev: 0,
  };
}

function foreignDoc(
  m: Source,
  createdAtFormat: DateFormat,
  turnAt: DateFormat | 'none',
): Record<string, unknown> {
  const messages = m.asString
    ? m.turns.map((t) => t.text).join('\n')
    : m.turns.map(({ role, text, at }) => ({
        sender: role === 'user' ? 'human' : 'ai',
        content: text,
        ...(turnAt !== 'none' && { ts: encodeDate(at, turnAt) }),
      }));
  const doc: Record<string, unknown> = {
    memory_id: m.id,
    uid: m.userId,
    companion: m.partnerId,
    created_at: encodeDate(m.createdAt, createdAtFormat),
    messages,
    meta: { source: 'app', schemaVersion: 3 },
  };
  // The product's own data under a name memfade also writes (docs/design.md invariant 13).
  if (m.collidesAt === 'rev') doc.rev = 41;
  if (m.collidesAt === 'compression') doc.compression = { codec: 'gzip' };
  if (m.collidesAt === 'vectorSync') doc.vectorSync = { provider: 'ours', at: '2026-01-01' };
  if (m.collidesAt === 'meta.compressedAt') (doc.meta as Record<string, unknown>).compressedAt = 'never';
  return doc;
}

function foreignMapping(
  shape: Shape,
  createdAtFormat: DateFormat,
  byPersona: boolean,
): Record<string, unknown> {
  return {
    collections: { memories: 'chat_memories' },
    memory: {
      id: 'memory_id',
      userId: 'uid',
      partnerId: 'companion',
      createdAt: { path: 'created_at', format: createdAtFormat },
      conversation: {
        path: 'messages',
        turns: { role: 'sender', text: 'content', at: 'ts', roles: { human: 'user', ai: 'assistant' } },
      },
    },
    ...(byPersona && { roleCard: { key: { userId: 'userId', partnerId: 'partnerId' } } }),
    ...(shape === 'prefix' && { writes: { prefix: 'memfade' } }),
    ...(shape === 'side' && { writes: { collection: 'memfade_side' } }),
  };
}

/** Whole days old at `asOf`, as docs/design.md §4 counts them. */
export const ageDays = (createdAt: Date, asOf: Date) =>
  Math.floor((asOf.getTime() - createdAt.getTime()) / DAY);

/** Ways a product writes a memory wrong: each must fail, naming the memory and the product's own field. */
export type Spoil =
  | 'turn-text'
  | 'turn-role'
  | 'turn-time'
  | 'no-conversation'
  | 'empty-conversation'
  | 'binary'
  | 'no-user'
  | 'duplicate-id'
  | 'other-language';

/** Matches a memory's document by its id, in the form the product stores it. */
export const byId = (product: Product, id: string): Record<string, unknown> => ({
  [product.idField]: product.storedIds?.get(id) ?? id,
});
