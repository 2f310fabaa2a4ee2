import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { importMemories } from '@memfade/app';
import { parseMemoryBank } from '@memfade/samples';
import { withOperations } from '../context.js';

/** Loads a MemoryBank-format file (users with meta_information, one memory per dated day). */
export async function importFile(file: string, options: { format: string; prefix?: string }): Promise<void> {
  if (options.format !== 'memorybank')
    throw new Error(`--format: unknown format '${options.format}' (known: memorybank)`);
  const json = JSON.parse(await readFile(file, 'utf8')) as unknown;
  const idPrefix = options.prefix ?? basename(file).replace(/\.json$/, '');
  const set = parseMemoryBank(json, { idPrefix });
  await withOperations(async (operations) => {
    const inserted = await importMemories(operations, set.memories, set.roleCards);
    console.log(
      `imported ${inserted.memories} new memories (of ${set.memories.length}) and ${inserted.roleCards} role cards; ` +
        `${set.emptyDays} empty days skipped`,
    );
  });
}
