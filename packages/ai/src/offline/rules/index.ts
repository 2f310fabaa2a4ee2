import { en } from './en.js';
import { zh } from './zh.js';

/** The offline compressor's language packs, by language: `RULES[language].leansBack`. */
export const RULES = { zh, en };
