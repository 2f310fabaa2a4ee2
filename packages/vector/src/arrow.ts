/**
 * apache-arrow exactly as LanceDB loads it. LanceDB is CommonJS and `require`s the CJS build, while an
 * ESM `import` gets the separate ESM build: same version, different classes. LanceDB converts foreign
 * tables only shallowly (a record batch loses its columns), so batches built here must use its classes.
 * Resolving from LanceDB's own entry point keeps that true even if a second copy gets installed.
 */
import { createRequire } from 'node:module';
import type * as ArrowModule from 'apache-arrow';

let loaded: typeof ArrowModule | undefined;

/**
 * Loaded on first use, with LanceDB: a process that never opens a LanceDB table (most CLI commands,
 * the dashboard, a worker on pgvector or MongoDB) does not pay for loading either.
 */
export function arrow(): typeof ArrowModule {
  if (!loaded) {
    const lancedbEntry = createRequire(import.meta.url).resolve('@lancedb/lancedb');
    loaded = createRequire(lancedbEntry)('apache-arrow') as typeof ArrowModule;
  }
  return loaded;
}
