import { en } from './en/index.js';
import { zh } from './zh/index.js';

/** The offline compressor's language packs, by language: `RULES[language].leansBack`. */
export const RULES = { zh, en };
/** How a stage writes a shared photo (lines.ts), which V2 reads as filler (the en pack's photoLine). */
export { SHARED_PHOTO } from './en/clauses.js';
