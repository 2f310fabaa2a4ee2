import { z } from 'zod';
import { BadInputError } from './errors.js';
import { type Memory, type RoleCard, STAGES } from './memory.js';
import type { StagePolicy } from './stage-policy.js';
import { readTime } from './times.js';

/**
 * Turns a stored document into a Memory or fails with a BadInputError that names the memory
 * and the field. Nothing downstream has to second-guess a Memory.
 */

const stringList = z.array(z.string(), { error: 'expected a list of strings' });

const turnSchema = z.object({
  role: z.string({ error: 'expected a string' }),
  text: z.string({ error: 'expected a string' }),
  at: z
    .preprocess(
      (at) => (typeof at === 'string' || typeof at === 'number' ? readTime(at) : at),
      z.date({ error: 'not a readable time' }),
    )
    .optional(),
});

const turnListSchema = z.array(turnSchema);

const processedSchema = z.object(
  {
    summary: z.string({ error: 'expected a string' }).optional(),
    keyTopics: stringList.optional(),
    facts: stringList.optional(),
    emotionalJourney: z
      .object({ start: z.string().optional(), peak: z.string().optional(), end: z.string().optional() })
      .optional(),
    memorableMoments: z
      .array(z.object({ content: z.string(), emotionTag: z.string().optional() }))
      .optional(),
  },
  { error: 'expected an object' },
);

/**
 * Only a BSON date is a creation date: the due scan is a range query on it, so a string or a
 * number would never be selected by date. A number is also ambiguous (seconds or milliseconds:
 * read the wrong way, a memory of last week dates from 1970 and goes straight to V2).
 */
const dateSchema = z.unknown().transform((value, ctx) => {
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (value === undefined || value === null) return refuse('missing or not a date (expected a BSON date)');
  if (typeof value === 'string')
    return refuse(`a string, not a BSON date: ${JSON.stringify(value.slice(0, 40))}`);
  if (typeof value === 'number')
    return refuse(`a number, not a BSON date: ${value} (seconds or milliseconds cannot be told apart)`);
  if (!(value instanceof Date))
    return refuse(`missing or not a date (expected a BSON date, got ${typeof value})`);
  if (Number.isNaN(value.getTime())) return refuse('not a valid date');
  return value;
});

/**
 * How far in the future a creation date may lie: clock skew between the product's servers and
 * ours is normal, a date a day or more ahead is a bug (wrong unit or time zone) that would keep
 * the memory out of every due scan until then, unnoticed.
 */
export const FUTURE_DATE_TOLERANCE_MS = 24 * 60 * 60 * 1000;

const memorySchema = z.object({
  memoryId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  userId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  partnerId: z.string({ error: 'not a string' }).default('default'),
  content: z.object(
    {
      raw: z.union([z.string(), turnListSchema], {
        error: 'expected a string or a list of { role, text } turns',
      }),
      processed: processedSchema.optional(),
    },
    { error: 'missing or not an object' },
  ),
  pendingTopics: z
    .object({ topics: z.array(z.union([z.string(), z.object({ topic: z.string() })])) })
    .optional(),
  meta: z.object(
    {
      createdAt: dateSchema,
      compressionStage: z.enum(STAGES, { error: 'missing or unknown stage (expected raw, v1 or v2)' }),
      compressedAt: z.coerce.date().optional(),
      language: z.enum(['zh', 'en']).optional(),
    },
    { error: 'missing or not an object' },
  ),
  compression: z
    .object(
      {
        v1: z.any().optional(),
        v2: z.any().optional(),
        v2Draft: z.any().optional(),
        history: z.array(z.any()).default([]),
      },
      { error: 'not an object' },
    )
    .optional(),
  rev: z.number({ error: 'not a number' }).int().default(0),
});

export function rawText(raw: Memory['content']['raw']): string {
  return typeof raw === 'string' ? raw : raw.map((turn) => `${turn.role}: ${turn.text}`).join('\n');
}

// C0 control characters other than tab, newline and carriage return never occur in chat text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
// A UTF-16 surrogate without its pair is not text: providers refuse it, or it turns into U+FFFD.
// (The Node MongoDB driver already replaces them on write; other sources may not.)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function fail(memoryId: string, path: PropertyKey[], message: string): never {
  throw new BadInputError(memoryId, path.map(String).join('.') || '(document)', message);
}

/** `now`, when given, also refuses a creation date more than FUTURE_DATE_TOLERANCE_MS ahead of it. */
export function parseMemory(doc: Record<string, unknown>, policy: StagePolicy, now?: Date): Memory {
  const id = typeof doc.memoryId === 'string' && doc.memoryId ? doc.memoryId : String(doc._id ?? '(unknown)');
  // Fields of memfade's name holding the product's data (the db package's canonical() lists them):
  // memfade would write over them, so the memory is refused and nothing is written.
  const foreign = doc.productFields;
  if (Array.isArray(foreign) && foreign.length) {
    fail(
      id,
      [String(foreign[0])],
      `holds the product's data, not memfade's (memfade's fields here: ${foreign.join(', ')}): memfade writes nothing over it; set mapping.writes.prefix or mapping.writes.collection so memfade writes elsewhere`,
    );
  }
  // The product holds two documents under this id (the store marks it): compressing one copy would
  // leave the other raw for ever, unseen, so neither is written until one is left.
  if (doc.sharedId === true)
    fail(
      id,
      ['memoryId'],
      'more than one document has this id: memfade writes to none of them until one is left',
    );
  // Size first: a 5 MB document must not be walked by the schema before it is refused.
  const content = doc.content as { raw?: unknown } | undefined;
  if (typeof content?.raw === 'string') checkText(id, content.raw, policy);
  // A list of turns is checked on its own first: the union below would name only `content.raw`,
  // not the turn and field that is wrong.
  if (Array.isArray(content?.raw)) {
    const turns = turnListSchema.safeParse(content.raw);
    if (!turns.success)
      fail(id, ['content', 'raw', ...turns.error.issues[0]!.path], turns.error.issues[0]!.message);
  }
  const parsed = memorySchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(id, issue.path, issue.message);
  }
  const memory = parsed.data as Memory;
  if (typeof memory.content.raw !== 'string') checkText(id, rawText(memory.content.raw), policy);
  if (now && memory.meta.createdAt.getTime() > now.getTime() + FUTURE_DATE_TOLERANCE_MS) {
    fail(
      id,
      ['meta', 'createdAt'],
      `${memory.meta.createdAt.toISOString()} is in the future (now is ${now.toISOString()})`,
    );
  }
  return memory;
}

function checkText(id: string, text: string, policy: StagePolicy): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > policy.maxInputBytes) {
    fail(
      id,
      ['content', 'raw'],
      `${bytes} bytes is more than the maximum input size of ${policy.maxInputBytes} bytes`,
    );
  }
  if (text.trim() === '') fail(id, ['content', 'raw'], 'empty');
  if (CONTROL_CHARS.test(text)) fail(id, ['content', 'raw'], 'contains control characters (binary content?)');
  if (LONE_SURROGATE.test(text))
    fail(id, ['content', 'raw'], 'contains unpaired UTF-16 surrogates (not text)');
}

const roleCardSchema = z.object({
  userId: z.string({ error: 'missing or not a string' }),
  // As the stages write them: " Juno " (a profile field with a space) is Juno, else the faithfulness
  // gate, reading the card's name, refused every stage written with the name trimmed.
  name: z.string({ error: 'not a string' }).trim().optional(),
  userName: z.string({ error: 'not a string' }).trim().optional(),
  personality: z
    .union([z.string(), stringList], { error: 'expected a string or a list of strings' })
    .transform((v) => (Array.isArray(v) ? v.join(', ') : v))
    .optional(),
  values: stringList.optional(),
  hobbies: z
    .union([z.string(), stringList], { error: 'expected a string or a list of strings' })
    .transform((v) => (Array.isArray(v) ? v.join(', ') : v))
    .optional(),
  speakingStyle: z.string({ error: 'not a string' }).optional(),
  language: z.enum(['zh', 'en'], { error: 'expected zh or en' }).optional(),
});

/**
 * A memory cannot be compressed in its owner's voice without a role card: missing is bad input.
 * The error names the memory's pair, user and partner (persona): a user may have a card for one
 * persona and none for another, and "no role card for user u1" would send the operator to a card
 * that exists.
 */
export function parseRoleCard(
  doc: Record<string, unknown> | null,
  memoryId: string,
  userId: string,
  partnerId = 'default',
): RoleCard {
  const pair = partnerId === 'default' ? `user ${userId}` : `user ${userId} with partner ${partnerId}`;
  if (!doc) fail(memoryId, ['roleCard'], `no role card for ${pair}`);
  const known = parsedCards.get(doc);
  if (known) return known;
  const parsed = roleCardSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(memoryId, ['roleCard', ...issue.path], issue.message);
  }
  parsedCards.set(doc, parsed.data);
  return parsed.data;
}

/**
 * Valid cards by the document they were parsed from: a store that caches a user's card hands the
 * same document to each of the user's memories, and it is parsed once. Read only, never changed.
 */
const parsedCards = new WeakMap<object, RoleCard>();
