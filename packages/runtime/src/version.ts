import { readFileSync } from 'node:fs';

/**
 * memfade's version, in logs and in the memfade_build_info metric. The workspace's packages are
 * versioned together; runtime's package.json is the one read (next to src/ and dist/ alike).
 */
export const MEMFADE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
