import { en } from './en/index.js';
import { zh } from './zh/index.js';

/** The offline compressor's language packs, by language: `RULES[language].leansBack`. */
export const RULES = { zh, en };
