import { DOTTED, noNullByte } from './mapping-names.js';
import type { Fields, MappingConfig } from './mapping-schema.js';

/**
 * The mapping's checks across keys (docs/mapping.md; mapping-names.ts checks each name alone):
 * docs/design.md invariant 10, memfade writes nothing under a path the mapping reads. Checked
 * when the mapping is loaded, so a mapping that would have memfade write inside the product's data
 * stops every app before it touches the database.
 */

/** Adds one issue at a key of the mapping (`['writes', 'prefix']`); its message follows the key. */
export type Refuse = (key: string[], message: string) => void;

/**
 * The same field, or one holding the other, by whole parts: `content` holds `content.raw`, but not
 * `content_mf`. A write there would change (or replace) what the product keeps at the other path.
 */
export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** A path of the mapping, with the key that set it, for the error. */
interface Named {
  key: string[];
  path: string;
}

const where = (key: string[]) => ['mapping', ...key].join('.');
const INSIDE = '(memfade would write inside product data)';

/**
 * Invariant 10 in the product's memory documents: every path memfade writes there is apart from every
 * path it reads or the product owns. Not in side-collection mode (memfade writes no product document
 * then). Role card fields need no check: their collection is one memfade never writes (checked by
 * checkCollections), so they are never in a document memfade writes.
 */
export function checkWritesApart(config: MappingConfig, fields: Fields, refuse: Refuse): void {
  const { memory, writes } = config;
  // An invalid path already has its own issue: compare only paths MongoDB would read as meant.
  const valid = (p: Named) => DOTTED.test(p.path) && noNullByte(p.path);
  const owned = [
    { key: ['memory', 'id'], path: memory.id },
    { key: ['memory', 'userId'], path: memory.userId },
    { key: ['memory', 'partnerId'], path: memory.partnerId },
    { key: ['memory', 'createdAt', 'path'], path: memory.createdAt.path },
    { key: ['memory', 'language'], path: memory.language },
    // content.raw when unset; none when the turns are another collection's documents.
    ...(fields.conversation ? [{ key: ['memory', 'conversation', 'path'], path: fields.conversation }] : []),
    { key: ['memory', 'processed'], path: memory.processed },
    { key: ['memory', 'pendingTopics'], path: memory.pendingTopics },
  ]
    .filter(valid)
    .map((p) => ({ ...p, label: `${where(p.key)} '${p.path}'` }));
  // The document's _id is the product's even when the memory id is elsewhere (and immutable).
  if (memory.id !== '_id') owned.push({ key: ['memory', 'id'], path: '_id', label: "the product's _id" });
  const apart = (write: Named) => {
    for (const other of owned.filter((p) => overlaps(write.path, p.path)))
      refuse(write.key, `'${write.path}' overlaps ${other.label} ${INSIDE}`);
  };

  // memfade's own fields, as resolveMapping placed them (so this list cannot drift from the writes).
  const mine = [
    fields.compressedAt,
    fields.rev,
    fields.compression,
    fields.fallbackLastError,
    fields.vectorSync,
    fields.owner,
  ];
  const stage = memory.stage !== undefined ? { key: ['memory', 'stage'], path: memory.stage } : undefined;
  if (stage && valid(stage)) {
    apart(stage);
    // On or around the prefix it meets all of memfade's fields: one error says so.
    const { prefix } = writes;
    const clashes =
      prefix && overlaps(stage.path, prefix) && !stage.path.startsWith(`${prefix}.`)
        ? [`mapping.writes.prefix '${prefix}'`]
        : mine.filter((p) => overlaps(stage.path, p)).map((p) => `memfade's field '${p}'`);
    for (const clash of clashes)
      refuse(stage.key, `'${stage.path}' overlaps ${clash} (two of memfade's fields in one place)`);
  }

  if (writes.prefix) {
    // Every field but a mapped stage is under the prefix: the prefix is what must stay apart.
    const prefix = { key: ['writes', 'prefix'], path: writes.prefix };
    if (valid(prefix)) apart(prefix);
    return;
  }
  // No prefix: memfade's fields are today's, beside the product's; a read path must miss each of them.
  const written = stage ? mine : [fields.stage, ...mine];
  for (const other of owned)
    for (const field of written.filter((p) => overlaps(other.path, p)))
      refuse(
        other.key,
        `'${other.path}' overlaps memfade's field '${field}' (memfade would write inside product data; writes.prefix is empty: set it or writes.collection)`,
      );
}

/**
 * memfade's own collections (it writes them) apart from the product's (it only reads them, and writes
 * memory documents only as invariant 10 allows), and each product collection holding one kind of
 * document: memfade would read a role card or a turn in the memory collection as a memory, and write
 * its fields into it.
 */
export function checkCollections(config: MappingConfig, own: string[], refuse: Refuse): void {
  const product: Named[] = [
    { key: ['collections', 'memories'], path: config.collections.memories },
    { key: ['collections', 'roleCards'], path: config.collections.roleCards },
    ...(config.memory.conversation.collection
      ? [{ key: ['memory', 'conversation', 'collection'], path: config.memory.conversation.collection }]
      : []),
  ];
  product.forEach(({ key, path: name }, i) => {
    if (own.includes(name))
      refuse(key, `'${name}' is a collection of memfade's own (memfade would write inside product data)`);
    const earlier = product.slice(0, i).find((p) => p.path === name);
    if (earlier)
      refuse(
        key,
        `'${name}' is also ${where(earlier.key)} (each product collection holds one kind of document)`,
      );
  });
}
