/**
 * apache-arrow exactly as LanceDB loads it. LanceDB is CommonJS and `require`s the CJS build, while an
 * ESM `import` gets the separate ESM build: same version, different classes. LanceDB converts foreign
 * tables only shallowly (a record batch loses its columns), so batches built here must use its classes.
 * Resolving from LanceDB's own entry point keeps that true even if a second copy gets installed.
 */
import { createRequire } from 'node:module';
import type * as ArrowModule from 'apache-arrow';

const lancedbEntry = createRequire(import.meta.url).resolve('@lancedb/lancedb');

export const arrow = createRequire(lancedbEntry)('apache-arrow') as typeof ArrowModule;
