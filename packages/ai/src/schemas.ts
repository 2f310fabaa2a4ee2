import type { V1Fields, V2Fields } from '@memfade/core';
import { z } from 'zod';

/**
 * The V1/V2 output schemas (seed 003). Parsing is lenient where the seed was: a missing optional
 * field gets the seed's default; the main text is required. Lengths and ratios are not asked
 * for at all: the worker measures them. The descriptions go to the model with the schema (the
 * tool's input schema, the response format): they say what each field holds and in whose voice.
 */
const list = (description: string) => z.array(z.string()).default([]).describe(description);

export const v1Schema = z.object({
  compressedContent: z
    .string()
    .min(1)
    .describe(
      "The companion's memory of the conversation in its own voice (first person), in the memory's " +
        'language: the topic, who said and did what, every name, place, date (relative ones resolved), ' +
        'number and plan, and how the user felt.',
    ),
  keyPoints: list('The key facts and plans, one short statement each, saying whose they are.'),
  emotionalHighlights: list(
    "Moments of the user's feelings, saying whose they are: the user's, not the companion's reassurance.",
  ),
  personalityAdjustment: z
    .object({
      emphasized: list("What the persona's personality made more important."),
      deemphasized: list("What the persona's personality made less important."),
    })
    .default({ emphasized: [], deemphasized: [] })
    .describe("How the role card's personality weighed the details."),
}) satisfies z.ZodType<V1Fields>;

export const v2Schema = z.object({
  coreMemory: z
    .string()
    .min(1)
    .describe(
      "The core memory the companion keeps, in its own voice (first person), in the memory's " +
        'language: what happened, with whom, on which date, and how the user felt.',
    ),
  coreMemoryPoints: list('The essential points, one short statement each, saying whose they are.'),
  memoryTraces: z
    .object({
      clear: list('Details still remembered clearly.'),
      fuzzy: list('Details remembered only roughly.'),
      vague: list('Details left as a vague impression.'),
    })
    .default({ clear: [], fuzzy: [], vague: [] })
    .describe("The memory's details sorted by how clearly the companion still remembers them."),
  forgotten: z
    .object({
      details: list('Details that faded from the core memory.'),
      reason: z.string().default('').describe('Why they faded.'),
    })
    .default({ details: [], reason: '' }),
  emotionalResidue: z
    .object({
      dominantEmotion: z.string().default('').describe("The user's dominant feeling, in a word or two."),
      intensity: z.number().min(0).max(1).default(0).describe('From 0 (faint) to 1 (overwhelming).'),
      summary: z.string().default('').describe('What the user felt, as it lingers.'),
    })
    .default({ dominantEmotion: '', intensity: 0, summary: '' })
    .describe("What the user felt, as it lingers: the user's feeling, not the companion's."),
  personalityNotes: z.string().default('').describe("How the persona's personality shaped what was kept."),
}) satisfies z.ZodType<V2Fields>;

/** V1 and its V2 draft from one call (V2_DRAFT=with-v1, docs/design.md §4): both stages' schemas. */
export const pairSchema = z.object({
  v1: v1Schema.describe('V1: the memory of the conversation (the V1 instructions).'),
  v2: v2Schema.describe(
    'V2: the core memory of the same conversation, shorter than v1 (the V2 instructions).',
  ),
});

/**
 * Several memories in one reply (MEMORIES_PER_REQUEST): one item per memory id, each the single
 * request's schema. Items are checked one by one (group-results.ts), so one broken item costs only
 * its memory.
 */
const groupOf = <T extends z.ZodType>(result: T) =>
  z.object({
    memories: z
      .array(
        z.object({
          memoryId: z.string().describe('The memoryId named before the memory, exactly as given.'),
          result: result,
        }),
      )
      .describe('One item per memory, each with its own result.'),
  });

type JsonSchema = Record<string, unknown>;

/**
 * Keywords strict structured output does not take (Anthropic strict tool use refuses numeric and
 * length bounds; OpenAI strict mode refuses minLength): they move into the description, as the
 * providers' own SDK helpers do, and zod still enforces them on the reply.
 */
const UNSUPPORTED = ['minLength', 'maxLength', 'minimum', 'maximum'];

/**
 * A JSON schema for strict structured output (OpenAI json_schema strict, Anthropic strict tool
 * input): every property required, no additional properties, no defaults, no bounds. Built once
 * per stage at load, never per call.
 */
function strict(node: JsonSchema): JsonSchema {
  const { default: _default, $schema: _schema, ...rest } = node;
  const bounds = UNSUPPORTED.filter((key) => key in rest).map((key) => `${key}: ${rest[key]}`);
  for (const key of UNSUPPORTED) delete rest[key];
  if (bounds.length) {
    rest.description = `${rest.description ? `${rest.description} ` : ''}{${bounds.join(', ')}}`;
  }
  if (rest.type === 'object' && rest.properties) {
    const properties = Object.fromEntries(
      Object.entries(rest.properties as Record<string, JsonSchema>).map(([k, v]) => [k, strict(v)]),
    );
    return { ...rest, properties, required: Object.keys(properties), additionalProperties: false };
  }
  if (rest.type === 'array' && rest.items) return { ...rest, items: strict(rest.items as JsonSchema) };
  return rest;
}

export const JSON_SCHEMAS = {
  v1: strict(z.toJSONSchema(v1Schema) as JsonSchema),
  v2: strict(z.toJSONSchema(v2Schema) as JsonSchema),
  pair: strict(z.toJSONSchema(pairSchema) as JsonSchema),
};

export const STAGE_SCHEMAS = { v1: v1Schema, v2: v2Schema, pair: pairSchema };

export const GROUP_JSON_SCHEMAS = {
  v1: strict(z.toJSONSchema(groupOf(v1Schema)) as JsonSchema),
  v2: strict(z.toJSONSchema(groupOf(v2Schema)) as JsonSchema),
  pair: strict(z.toJSONSchema(groupOf(pairSchema)) as JsonSchema),
};
