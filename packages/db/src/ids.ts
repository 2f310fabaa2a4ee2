import { Types } from 'mongoose';

/**
 * Ids as memfade carries them, and as a product may store them (docs/mapping.md "Ids"): memfade
 * reads every memory, user and persona id as a string (an ObjectId as its 24 hex digits, a number
 * in decimal), and matches a string it holds against each form the product may have stored: the
 * string itself, the ObjectId it spells, the integer it spells. A Mongoose app's `userId` is most
 * often an ObjectId referencing its users; a product moved from SQL has integers.
 */

/** An id as memfade carries it, or undefined for none (a missing field stays missing). */
export function idText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'object' && (value as { _bsontype?: unknown })._bsontype === 'ObjectId')
    return String(value);
  return undefined;
}

/** idText, with '' for none: for keys and sets of ids read back from documents. */
export const idString = (value: unknown): string => idText(value) ?? (value == null ? '' : String(value));

const OBJECT_ID = /^[0-9a-f]{24}$/;
const INTEGER = /^-?(?:0|[1-9]\d{0,14})$/;

/** Every stored form of these ids: each string, the ObjectId it spells, the integer it spells. */
export function idForms(ids: readonly string[]): unknown[] {
  const unique = [...new Set(ids)];
  return [
    ...unique,
    ...unique.filter((id) => OBJECT_ID.test(id)).map((id) => new Types.ObjectId(id)),
    ...unique.filter((id) => INTEGER.test(id)).map(Number),
  ];
}

/** The ObjectId these 24 hex digits spell (the simulator writes a product's ids so). */
export const objectIdOf = (hex: string): unknown => new Types.ObjectId(hex);

/** Matches documents whose id at `path` is one of these, in any stored form (one form: equality). */
export function idsAt(path: string, ids: readonly string[]): Record<string, unknown> {
  const forms = idForms(ids);
  return { [path]: forms.length === 1 ? forms[0] : { $in: forms } };
}
