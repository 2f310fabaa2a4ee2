import { z } from 'zod';
import { BadInputError } from './errors.js';
import { type Memory, type RoleCard, STAGES } from './memory.js';
import type { StagePolicy } from './stage-policy.js';

/**
 * Turns a stored document into a Memory or fails with a BadInputError that names the memory
 * and the field. Nothing downstream has to second-guess a Memory.
 */

const stringList = z.array(z.string(), { error: 'expected a list of strings' });

const turnSchema = z.object({
  role: z.string({ error: 'expected a string' }),
  text: z.string({ error: 'expected a string' }),
  at: z.coerce.date().optional(),
});

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

const dateSchema = z
  .union([z.date(), z.string(), z.number()], { error: 'missing or not a date' })
  .transform((value, ctx) => {
    const date = value instanceof Date ? value : new Date(value);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: `not a valid date: ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return date;
  });

const memorySchema = z.object({
  memoryId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  userId: z.string({ error: 'missing or not a string' }).min(1, { error: 'empty' }),
  partnerId: z.string({ error: 'not a string' }).default('default'),
  content: z.object(
    {
      raw: z.union([z.string(), z.array(turnSchema)], {
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
      { v1: z.any().optional(), v2: z.any().optional(), history: z.array(z.any()).default([]) },
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

function fail(memoryId: string, path: PropertyKey[], message: string): never {
  throw new BadInputError(memoryId, path.map(String).join('.') || '(document)', message);
}

export function parseMemory(doc: Record<string, unknown>, policy: StagePolicy): Memory {
  const id = typeof doc.memoryId === 'string' && doc.memoryId ? doc.memoryId : String(doc._id ?? '(unknown)');
  // Size first: a 5 MB document must not be walked by the schema before it is refused.
  const content = doc.content as { raw?: unknown } | undefined;
  if (typeof content?.raw === 'string') checkText(id, content.raw, policy);
  const parsed = memorySchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(id, issue.path, issue.message);
  }
  const memory = parsed.data as Memory;
  if (typeof memory.content.raw !== 'string') checkText(id, rawText(memory.content.raw), policy);
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
}

const roleCardSchema = z.object({
  userId: z.string({ error: 'missing or not a string' }),
  name: z.string({ error: 'not a string' }).optional(),
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

/** A memory cannot be compressed in its owner's voice without a role card: missing is bad input. */
export function parseRoleCard(
  doc: Record<string, unknown> | null,
  memoryId: string,
  userId: string,
): RoleCard {
  if (!doc) fail(memoryId, ['roleCard'], `no role card for user ${userId}`);
  const parsed = roleCardSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(memoryId, ['roleCard', ...issue.path], issue.message);
  }
  return parsed.data;
}
