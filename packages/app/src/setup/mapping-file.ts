import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { errorMessage } from '@memfade/core';
import { DEFAULT_MAPPING, type Mapping, MappingError, parseMapping } from '@memfade/db/mapping';
import { ConfigError } from '@memfade/runtime';

/** YAML's parser, loaded for a .yaml mapping only: most deployments have none, and it is 70 modules. */
const parseYaml = (text: string): unknown =>
  (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);

/**
 * The MEMFADE_MAPPING file (docs/mapping.md): JSON, or YAML when it ends in .yaml or .yml. Read
 * and validated once at start-up, so a mapping that cannot be read stops every app before it
 * touches the database, with the offending key named. No file: today's field names.
 */
export function loadMapping(path: string | undefined): Mapping {
  if (!path) return DEFAULT_MAPPING;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`MEMFADE_MAPPING: cannot read ${path}: ${errorMessage(error)}`);
  }
  let content: unknown;
  try {
    content = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `MEMFADE_MAPPING: ${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${errorMessage(error)}`,
    );
  }
  try {
    return parseMapping(content);
  } catch (error) {
    if (error instanceof MappingError) throw new ConfigError(`MEMFADE_MAPPING ${path}:\n${error.message}`);
    throw error;
  }
}
