import { z } from 'zod';

/**
 * What a mapping file may name (docs/mapping.md): dotted paths, keys and collection names that
 * MongoDB reads as meant. The schema (mapping-schema.ts) is made of these; the checks across keys
 * (mapping-rules.ts) compare paths only where these hold.
 */

export const DOTTED = /^[^.$]+(\.[^.$]+)*$/;
export const noNullByte = (value: string) => !value.includes('\0');

/** A dotted field path: no `$`, no empty part (MongoDB would read it as an operator or refuse it). */
export const fieldPath = z
  .string({ error: 'expected a dotted field path' })
  .regex(DOTTED, { error: 'expected a dotted field path (no $, no empty part)' })
  .refine(noNullByte, { error: 'expected a dotted field path without a null byte' });

/** One key of an object (a turn's role, text or time). */
export const fieldKey = z
  .string({ error: 'expected a key' })
  .regex(/^[^.$]+$/, { error: 'expected a key (no . or $)' })
  .refine(noNullByte, { error: 'expected a key without a null byte' });

/** MongoDB's namespace limit is 255 bytes with the database name (under 64) and a dot; 120 is safe. */
const MAX_COLLECTION_BYTES = 120;

/** A collection name MongoDB takes as a plain collection of the product's database. */
export const collectionName = z
  .string({ error: 'expected a collection name' })
  .min(1, { error: 'expected a collection name' })
  .refine((name) => !name.includes('$'), {
    error: (issue) => `expected a collection name without $ (MongoDB reserves it), not ${issue.input}`,
  })
  .refine(noNullByte, { error: 'expected a collection name without a null byte' })
  .refine((name) => !name.startsWith('system.'), {
    error: (issue) =>
      `expected a collection name not starting with system. (MongoDB reserves it), not ${issue.input}`,
  })
  .refine((name) => Buffer.byteLength(name) <= MAX_COLLECTION_BYTES, {
    error: (issue) =>
      `expected a collection name of at most ${MAX_COLLECTION_BYTES} bytes (${Buffer.byteLength(String(issue.input))})`,
  });
