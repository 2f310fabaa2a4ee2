import type { Language, Memory, RoleCard } from './memory.js';
import { detectLanguage, hanShare, inBothLanguages } from './text.js';

/**
 * The language a memory is compressed in. A conversation clearly in one language keeps it, whatever
 * a setting says: an English memory of a Chinese chat would be a translation (docs/design.md §4).
 * A mixed one is in the memory's own language if the product set one, else its card's, else the
 * language most of it is in.
 */
export function memoryLanguage(memory: Memory, card: RoleCard | undefined): Language {
  // What was said, not the labels: "user:" and "assistant:" on every line made a Chinese chat with one
  // English question "mixed", and its card's "en" then asked for an English memory of it.
  const { raw } = memory.content;
  const text = typeof raw === 'string' ? raw : raw.map((turn) => turn.text).join('\n');
  if (!inBothLanguages(text)) {
    if (hanShare(text) > 0.5) return 'zh';
    if (/[A-Za-z]/.test(text)) return 'en';
  }
  return memory.meta.language ?? card?.language ?? detectLanguage(text);
}
