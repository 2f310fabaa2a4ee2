/**
 * The conversations the faithfulness tests read (faithfulness.test.ts,
 * faithfulness-mixed-languages.test.ts): a FaithfulnessSource of one language from [speaker, text]
 * turns and the names a stage may use. Not compiled into dist (tsconfig excludes it): it is test code.
 */
import type { FaithfulnessSource } from './faithfulness-match.js';

export const zh = (turns: [string, string][], names: string[] = []): FaithfulnessSource => ({
  language: 'zh',
  turns: turns.map(([role, text]) => ({ role, text })),
  names,
});
export const en = (turns: [string, string][], names: string[] = []): FaithfulnessSource => ({
  language: 'en',
  turns: turns.map(([role, text]) => ({ role, text })),
  names,
});
