import { type Mapping, valueAt } from './mapping.js';

/**
 * memfade writes only fields whose value it wrote (docs/design.md §3, invariant 10). With a mapping
 * file its fields sit in the product's documents under names the product never agreed to (`rev`,
 * `compression`, `meta.compressedAt`... or a prefix), and a product may keep data of its own there.
 * So every write memfade makes to a product document also sets its mark (`fields.owner`, `memfade`
 * beside its other fields) and is conditional on the document carrying that mark or none of
 * memfade's fields yet: a field of memfade's name holding the product's data stops the write, in
 * the filter itself, so no race can overwrite it either. canonical() lists such fields, parseMemory
 * refuses the memory naming them (bad input, nothing written) and `memfade doctor` exits 1.
 * Without a mapping file the documents follow memfade's data contract, and in side-collection mode
 * memfade writes no product document: nothing to check (Mapping.checksOwnership).
 */

/** The value of memfade's mark on a product document whose memfade-named fields it wrote. */
export const OWNER_MARK = 'memfade';

type Doc = Record<string, unknown>;

/** The stage values a product may have written at insert (memfade's contract: `raw`). */
const UNWRITTEN_STAGES: unknown[] = [null, 'raw'];

/**
 * Where memfade's fields are in a product document, the stage aside: the prefix holds them all;
 * without one, each field is beside the product's.
 */
function memfadePaths(mapping: Mapping): string[] {
  const F = mapping.fields;
  const { prefix } = mapping.config.writes;
  return prefix
    ? [prefix]
    : [F.rev, F.compression, F.vectorSync, F.compressedAt, F.fallbackLastError, F.owner];
}

/** The stage's path when it is not under the prefix (none, or a mapped `memory.stage`). */
function stageApart(mapping: Mapping): string | undefined {
  const { prefix } = mapping.config.writes;
  const stage = mapping.fields.stage;
  return prefix && stage.startsWith(`${prefix}.`) ? undefined : stage;
}

/**
 * The paths of memfade's fields that hold the product's data in this product document (as stored):
 * it has no mark of memfade's, and one of them exists (a stage other than `raw`). Empty when memfade
 * may write the document.
 */
export function productFields(doc: Doc, mapping: Mapping): string[] {
  if (!mapping.checksOwnership || valueAt(doc, mapping.fields.owner) === OWNER_MARK) return [];
  const found = memfadePaths(mapping).filter((path) => valueAt(doc, path) !== undefined);
  const stage = stageApart(mapping);
  const value = stage === undefined ? undefined : valueAt(doc, stage);
  if (stage && value !== undefined && !UNWRITTEN_STAGES.includes(value)) found.push(stage);
  return found;
}

/** `filter`, also matching only documents memfade may write (productFields would be empty). */
export function ownedOnly(mapping: Mapping, filter: Doc): Doc {
  if (!mapping.checksOwnership) return filter;
  const fresh: Doc = Object.fromEntries(memfadePaths(mapping).map((path) => [path, { $exists: false }]));
  const stage = stageApart(mapping);
  if (stage) fresh[stage] = { $in: UNWRITTEN_STAGES };
  return { $and: [filter, { $or: [{ [mapping.fields.owner]: OWNER_MARK }, fresh] }] };
}

/**
 * Filters matching the product documents productFields finds data in (none without the check): no
 * mark, and one of memfade's fields present (the stage at a value other than raw). `$exists` with
 * `$nin`: some servers match a missing field with `$nin: [null]`.
 */
export function productDataFilters(mapping: Mapping): Doc[] {
  if (!mapping.checksOwnership) return [];
  const stage = stageApart(mapping);
  const present = [
    ...memfadePaths(mapping).map((path) => ({ [path]: { $exists: true } })),
    ...(stage ? [{ [stage]: { $exists: true, $nin: UNWRITTEN_STAGES } }] : []),
  ];
  return [{ [mapping.fields.owner]: { $ne: OWNER_MARK }, $or: present }];
}

/** What every write of memfade's to a product document also sets: its mark. */
export function ownerMark(mapping: Mapping): Doc {
  return mapping.checksOwnership ? { [mapping.fields.owner]: OWNER_MARK } : {};
}
