import { createHash } from 'node:crypto';
import { type Rng, toTraditional } from '@memfade/core';
import { objectIdOf } from '@memfade/db';
import { ageDays, type Product, type SimMemory, type Spoil } from './product.js';

/**
 * What a product writes now and then that memfade must take as it comes, or refuse naming it: a
 * card or a memory written wrong, a memory inserted twice, a long day of chat, a conversation in a
 * language memfade does not write, turn times without a zone. Each is drawn after every older
 * lever (night.ts), so earlier seeds keep their products and nights.
 */

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

/**
 * Now and then a product (in its own field names) whose memory ids are integers (a product moved
 * from SQL) and whose users are ObjectIds referencing its users collection, as a Mongoose app keeps
 * them, the role cards keyed alike. memfade reports them as strings (decimal, 24 hex digits) and must
 * find every document in its stored form: the night, edits, deletes, forget --user, the sweep. Drawn
 * after writeTimesWithoutZone, so its seeds keep theirs.
 */
export function storeIdsAsTheyCome(random: Rng, product: Product): void {
  if (product.shape === 'own' || !random.chance(0.3)) return;
  const hexOf = (userId: string) => createHash('sha256').update(userId).digest('hex').slice(0, 24);
  const ids = new Map(product.memories.map((m, i) => [m.id, 100_000 + i]));
  for (const doc of product.docs) {
    doc.memory_id = ids.get(String(doc.memory_id)) ?? doc.memory_id;
    // A memory spoiled with no user (spoilAMemory) stays without one.
    if (doc.uid !== undefined) doc.uid = objectIdOf(hexOf(String(doc.uid)));
  }
  for (const card of product.cards) card.userId = objectIdOf(hexOf(String(card.userId)));
  for (const memory of product.memories) {
    memory.id = String(ids.get(memory.id));
    memory.userId = hexOf(memory.userId);
  }
  product.storedIds = new Map([...ids.values()].map((n) => [String(n), n]));
}

/**
 * Now and then one Chinese user who writes in traditional characters (Taiwan, Hong Kong): their
 * memories' turns converted, the companion's too. Each stage of theirs must be in traditional
 * characters, and none refused for its script. Drawn after storeIdsAsTheyCome, so its seeds keep theirs.
 */
export function writeSomeInTraditional(random: Rng, product: Product): void {
  const chinese = [...new Set(product.memories.filter((m) => m.userId.includes('zh')).map((m) => m.userId))];
  if (chinese.length === 0 || !random.chance(0.25)) return;
  const userId = random.pick(chinese);
  product.memories.forEach((memory, i) => {
    if (memory.userId !== userId) return;
    const { holder, key } = conversationOf(product, product.docs[i]!);
    const conversation = holder[key];
    if (typeof conversation === 'string') holder[key] = toTraditional(conversation);
    else if (Array.isArray(conversation))
      for (const turn of conversation as Record<string, unknown>[])
        for (const field of ['text', 'content'])
          if (typeof turn[field] === 'string') turn[field] = toTraditional(turn[field] as string);
    memory.traditional = true;
  });
}

/**
 * Now and then a product (in its own field names) that stores who sent each turn by id, as chat
 * apps do: the user's id on the user's turns, the companion's on its own, and a mapping that names
 * them `$userId` and `$partnerId` (docs/mapping.md `roles`). Every stage must still say who said
 * what; a turn left without its sender (spoilAMemory) stays without one. Drawn last, so earlier
 * seeds keep theirs.
 */
export function sendTurnsById(random: Rng, product: Product): void {
  const turns = (product.mapping?.memory as { conversation?: { turns?: { roles: object } } } | undefined)
    ?.conversation?.turns;
  if (!turns || !random.chance(0.25)) return;
  turns.roles = { ...turns.roles, $userId: 'user', $partnerId: 'assistant' };
  const by: Record<string, string> = { human: 'uid', ai: 'companion' };
  for (const doc of product.docs) {
    if (!Array.isArray(doc.messages)) continue;
    for (const turn of doc.messages as Record<string, unknown>[]) {
      const id = doc[by[String(turn.sender)] ?? ''];
      if ('sender' in turn && id !== undefined) turn.sender = id;
    }
  }
  product.sendersById = true;
}

/**
 * Role cards whose names a product stored as its profile fields often are, a third of the seeds:
 * with a space or a line break around them (" 小暖 ", "Juno\n"). The stages write the name trimmed;
 * on the code before, the faithfulness gate read it untrimmed and refused every offline stage of
 * those users, night after night ("stage refused for good"). Drawn last, so earlier seeds keep theirs.
 */
export function padCardNames(random: Rng, product: Product): void {
  if (product.cards.length === 0 || !random.chance(1 / 3)) return;
  for (const card of product.cards)
    if (typeof card.name === 'string') card.name = random.chance(0.5) ? ` ${card.name} ` : `${card.name}\n`;
}
