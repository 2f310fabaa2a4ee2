import { generateDemoData } from '@memfade/samples';
import type { Rng } from './rng.js';

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

export function buildProduct(random: Rng, now: Date): Product {
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
    const turns = source.content.raw.map((turn, t) => ({
      ...turn,
      text:
        t === source.content.raw.length - 1 && source.content.raw.length > 2
          ? `${turn.text} ${marker}`
          : turn.text,
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

/**
 * Now and then a card the product wrote wrong (a number where text goes): its memories must fail,
 * naming the field. Drawn after the product and the night (night.ts), so earlier seeds keep both.
 */
export function spoilACard(random: Rng, product: Product): void {
  if (product.cards.length === 0 || !random.chance(0.2)) return;
  const bad = product.cards[random.int(0, product.cards.length - 1)]!;
  bad.personality = 42;
  for (const memory of product.memories)
    if (memory.userId === bad.userId && (bad.partnerId === undefined || memory.partnerId === bad.partnerId)) {
      memory.hasCard = false;
      memory.badCard = true;
    }
}

/** One memory at least 3 days old (due for a stage) that `eligible` allows, with its document; drawn from `random`. */
function pickDue(
  random: Rng,
  product: Product,
  now: Date,
  eligible: (memory: SimMemory) => boolean,
): { memory: SimMemory; doc: Record<string, unknown> } | undefined {
  const due = product.memories.filter((m) => eligible(m) && ageDays(m.createdAt, now) >= 3);
  if (due.length === 0) return undefined;
  const memory = random.pick(due);
  return { memory, doc: product.docs[product.memories.indexOf(memory)]! };
}

/** Where a product document keeps its conversation: the object holding it and the key. */
function conversationOf(product: Product, doc: Record<string, unknown>) {
  const own = product.shape === 'own';
  return { holder: (own ? doc.content : doc) as Record<string, unknown>, key: own ? 'raw' : 'messages' };
}

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

/**
 * Now and then one memory due for a stage that the product wrote wrong (a number for a turn's text,
 * a turn without its speaker, an unreadable turn time, no conversation or an empty one, a control
 * character, no user): it must fail, its reason naming the memory and the field as the product
 * names it (its mapping's path, not memfade's), and nothing may be written to it. Drawn after
 * every other lever (night.ts), so earlier seeds keep their products and nights.
 */
export function spoilAMemory(random: Rng, product: Product, now: Date): void {
  if (!random.chance(0.35)) return;
  const picked = pickDue(random, product, now, (m) => m.hasCard && !m.collidesAt);
  if (!picked) return;
  const { memory, doc } = picked;
  const foreign = product.shape !== 'own';
  const path = foreign ? 'messages' : 'content.raw';
  const { holder, key } = conversationOf(product, doc);
  const turns = Array.isArray(holder[key]) ? (holder[key] as Record<string, unknown>[]) : undefined;
  const kinds: Spoil[] = ['no-conversation', 'empty-conversation', 'binary', 'no-user'];
  if (turns) kinds.push('turn-text', 'turn-role');
  if (turns && product.turnAt !== 'none') kinds.push('turn-time');
  const kind = random.pick(kinds);
  const t = turns ? random.int(0, turns.length - 1) : 0;
  const names = foreign
    ? { role: 'sender', text: 'content', at: 'ts' }
    : { role: 'role', text: 'text', at: 'at' };
  let field = path;
  if (kind === 'no-conversation') delete holder[key];
  else if (kind === 'empty-conversation') holder[key] = turns ? [] : '';
  else if (kind === 'binary') {
    if (turns) turns[t]![names.text] = `${String(turns[t]![names.text])}\u0007`;
    else holder[key] = `${String(holder[key])}\u0007`;
  } else if (kind === 'no-user') {
    field = foreign ? 'uid' : 'userId';
    delete doc[field];
  } else {
    const name = kind === 'turn-text' ? names.text : kind === 'turn-role' ? names.role : names.at;
    field = `${path}.${t}.${name}`;
    if (kind === 'turn-text') turns![t]![name] = 42;
    else if (kind === 'turn-role') delete turns![t]![name];
    else turns![t]![name] = 'at noon';
  }
  memory.spoiled = { kind, field };
}

/**
 * Now and then the product inserts one due memory twice (the same id, the same document: a retried
 * insert). Neither copy may be compressed (one written, the other left raw for ever, unseen): the
 * memory fails naming its id field. Only a memory no event of the night edits, deletes or forgets
 * (`touched`: schedule.ts touchedMemories; the product would touch one copy). Drawn after
 * spoilAMemory, so its seeds keep their spoils.
 */
export function duplicateAMemory(random: Rng, product: Product, touched: Set<string>, now: Date): void {
  if (!random.chance(0.25)) return;
  const picked = pickDue(
    random,
    product,
    now,
    (m) => m.hasCard && !m.collidesAt && !m.spoiled && !touched.has(m.id),
  );
  if (!picked) return;
  const { memory, doc } = picked;
  product.docs.push({ ...doc });
  memory.spoiled = { kind: 'duplicate-id', field: product.idField };
}

/**
 * Now and then one due memory a long day of chat: its conversation said over again until it needs two
 * or three of MAX_CHUNK_CHARS' chunks (12,000 characters), so V1 is written chunk by chunk and merged
 * (in batch mode too, through the sync path), and its budget is reserved for every chunk. Drawn last.
 */
export function lengthenAMemory(random: Rng, product: Product, now: Date): void {
  if (!random.chance(0.25)) return;
  const picked = pickDue(random, product, now, (m) => m.hasCard && !m.spoiled);
  if (!picked) return;
  const { holder, key } = conversationOf(product, picked.doc);
  const conversation = holder[key];
  const said = (turn: Record<string, unknown>) => String(turn.text ?? turn.content ?? '');
  const length = Array.isArray(conversation)
    ? (conversation as Record<string, unknown>[]).reduce((sum, turn) => sum + said(turn).length, 0)
    : String(conversation).length;
  const times = Math.ceil(random.int(14_000, 36_000) / Math.max(1, length));
  holder[key] = Array.isArray(conversation)
    ? Array.from({ length: times }, () => structuredClone(conversation)).flat()
    : Array.from({ length: times }, () => conversation).join('\n');
}

/** A conversation in each language memfade does not write, and the name its refusal gives it. */
const OTHER_LANGUAGES: [string, string[]][] = [
  [
    'Korean',
    [
      '오늘 할머니 장례식에 다녀왔어. 너무 슬퍼.',
      '정말 힘든 하루였겠다. 할머니와 어떤 추억이 제일 생각나?',
      '어릴 때 할머니가 정원에서 토마토 키우는 법을 가르쳐 주셨어.',
    ],
  ],
  [
    'Japanese',
    [
      '今日は祖母のお葬式に行ってきたよ。とても悲しい。',
      '本当につらい一日だったね。一番の思い出は何？',
      '子供の頃、祖母が庭でトマトの育て方を教えてくれたんだ。',
    ],
  ],
  [
    'Spanish',
    [
      'Hoy fui al funeral de mi abuela. Estoy muy triste.',
      'Debió ser un día muy duro. ¿Cuál es tu recuerdo favorito con ella?',
      'Cuando era niña, mi abuela me enseñó a cultivar tomates en su jardín.',
    ],
  ],
  [
    'a Cyrillic-script language',
    [
      'Сегодня я была на похоронах бабушки. Мне очень грустно.',
      'Это был тяжёлый день. Что ты вспоминаешь чаще всего?',
      'В детстве бабушка научила меня выращивать помидоры в саду.',
    ],
  ],
];

/**
 * Now and then one due memory is a conversation in a language memfade does not write (Korean,
 * Japanese, Spanish, Russian; its marker kept): it must fail naming the memory, the field and the
 * language, nothing written, never translated. Drawn after lengthenAMemory, so its seeds keep theirs.
 */
export function writeAMemoryInAnotherLanguage(random: Rng, product: Product, now: Date): void {
  if (!random.chance(0.2)) return;
  const picked = pickDue(random, product, now, (m) => m.hasCard && !m.collidesAt && !m.spoiled);
  if (!picked) return;
  const { memory, doc } = picked;
  const [language, lines] = random.pick(OTHER_LANGUAGES);
  const { holder, key } = conversationOf(product, doc);
  const conversation = holder[key];
  const said = (i: number) => `${lines[i % lines.length]}${i === 0 ? ` ${memory.marker}` : ''}`;
  if (Array.isArray(conversation)) {
    const text = product.shape === 'own' ? 'text' : 'content';
    holder[key] = (conversation as Record<string, unknown>[]).map((turn, i) => ({
      ...turn,
      [text]: said(i),
    }));
  } else holder[key] = lines.map((_, i) => said(i)).join('\n');
  memory.spoiled = {
    kind: 'other-language',
    field: product.shape === 'own' ? 'content.raw' : 'messages',
    says: language,
  };
}

/**
 * Now and then a product whose turn times are ISO strings without a zone ("2026-11-20T10:00:00",
 * "2026-11-20 10:00:00": a naive datetime's isoformat, a SQL DATETIME), read by workers and a CLI in
 * different time zones (New York, Shanghai), as an operator's laptop and a server are. Every
 * process must read the same instants: a stage computed in one zone and checked in another must
 * not read as an edit. Drawn after writeAMemoryInAnotherLanguage, so its seeds keep theirs.
 */
export function writeTimesWithoutZone(random: Rng, product: Product): void {
  if (product.turnAt !== 'iso' || !random.chance(0.5)) return;
  const separator = random.pick(['T', ' ']);
  const zoneless = (at: unknown) =>
    typeof at === 'string' ? at.replace(/(?:\.000)?Z$/, '').replace('T', separator) : at;
  const key = product.shape === 'own' ? 'at' : 'ts';
  for (const doc of product.docs) {
    const { holder, key: conversation } = conversationOf(product, doc);
    const turns = holder[conversation];
    if (Array.isArray(turns))
      for (const turn of turns as Record<string, unknown>[]) if (key in turn) turn[key] = zoneless(turn[key]);
  }
  product.timeZones = { workers: 'America/New_York', cli: 'Asia/Shanghai' };
}
