import type { V1Fields, V2Fields } from '@memfade/core';
import { z } from 'zod';

/**
 * The V1/V2 output schemas (seed 003). Parsing is lenient where the seed was: a missing optional
 * field gets the seed's default; the main text is required. Lengths and ratios are not asked
 * for at all: the worker measures them.
 */
const list = z.array(z.string()).default([]);

export const v1Schema = z.object({
  compressedContent: z.string().min(1),
  keyPoints: list,
  emotionalHighlights: list,
  personalityAdjustment: z
    .object({ emphasized: list, deemphasized: list })
    .default({ emphasized: [], deemphasized: [] }),
}) satisfies z.ZodType<V1Fields>;

export const v2Schema = z.object({
  coreMemory: z.string().min(1),
  coreMemoryPoints: list,
  memoryTraces: z
    .object({ clear: list, fuzzy: list, vague: list })
    .default({ clear: [], fuzzy: [], vague: [] }),
  forgotten: z.object({ details: list, reason: z.string().default('') }).default({ details: [], reason: '' }),
  emotionalResidue: z
    .object({
      dominantEmotion: z.string().default(''),
      intensity: z.number().min(0).max(1).default(0),
      summary: z.string().default(''),
    })
    .default({ dominantEmotion: '', intensity: 0, summary: '' }),
  personalityNotes: z.string().default(''),
}) satisfies z.ZodType<V2Fields>;

type JsonSchema = Record<string, unknown>;

/**
 * A JSON schema for strict structured output (OpenAI json_schema strict, Anthropic tool input):
 * every property required, no additional properties, no defaults. Built once per stage at load,
 * never per call.
 */
function strict(node: JsonSchema): JsonSchema {
  const { default: _default, $schema: _schema, ...rest } = node;
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
};

export const STAGE_SCHEMAS = { v1: v1Schema, v2: v2Schema };
