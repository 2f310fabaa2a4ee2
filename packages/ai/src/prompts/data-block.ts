/**
 * The data blocks' one safety rule: nothing in the memory's text or the role card's (or in a name
 * placed in the prompt) may read as a block's tag: <memory>, </memory>, <role_card>, </role_card>.
 */

/** The neutral form of a tag's '<' inside the data block: the instructions' delimiters never use it. */
const NEUTRAL_OPENER = '＜';

/** Letters of other scripts (Cyrillic, Greek) that look like those of "memory" and "role_card". */
const LOOKALIKES: Record<string, string> = {
  е: 'e',
  о: 'o',
  у: 'y',
  м: 'm',
  г: 'r',
  а: 'a',
  с: 'c',
  ο: 'o',
  ε: 'e',
  μ: 'm',
  α: 'a',
};

/**
 * One character as a model reads it: styled, full-width and accented forms folded to their base
 * letters (NFKD), invisible characters and combining marks gone, lookalike letters folded, lower
 * case. The neutral opener is kept as it is, so neutralising twice changes nothing.
 */
function asRead(ch: string): string {
  if (ch.charCodeAt(0) < 0x80) return ch.toLowerCase();
  if (ch === NEUTRAL_OPENER) return ch;
  const base = ch
    .normalize('NFKD')
    .replace(/[\p{Cf}\p{Mn}]/gu, '')
    .toLowerCase();
  return LOOKALIKES[base] ?? base;
}

/** Every character whose reading (asRead) starts an opener. */
const OPENER_CHARS = /[<&\\\u226e\ufe60\ufe64\ufe68\uff06\uff3c]/;

/**
 * A block's tag as read: an opener ('<', or an escape of it a model decodes in its head: an HTML
 * entity, \u003c, \x3c), spaces, any slashes (also '\/' as in JSON), spaces, "memory" or
 * "role_card" (any space, '_' or '-' between its words).
 */
const TAG = /(<|&lt;|&#0*60;|&#x0*3c;|\\u003c|\\x3c)\s*[/\\⁄∕]*\s*(?:memory|role[\s_-]*card)/g;

/**
 * Makes text safe to place in a data block (between <memory> and </memory>, or <role_card> and
 * </role_card>): nothing in it reads as a block's tag, so it can neither end its block early nor
 * open a new one. The opener of anything that reads as one (whatever spaces, case, full-width,
 * styled or lookalike letters, invisible characters or escapes it uses) becomes a full-width '＜';
 * the rest of the text is left as it is.
 */
export function escapeDataBlock(text: string): string {
  // Most memories have nothing that reads as an opener: no need to read them character by character.
  if (!OPENER_CHARS.test(text)) return text;
  // The text as read, with where each of its UTF-16 units came from in the original.
  let read = '';
  const origin: number[] = [];
  let at = 0;
  for (const ch of text) {
    const folded = asRead(ch);
    read += folded;
    for (let i = 0; i < folded.length; i++) origin.push(at);
    at += ch.length;
  }
  let out = '';
  let done = 0;
  for (const match of read.matchAll(TAG)) {
    const first = origin[match.index]!;
    const lastUnit = match.index + match[1]!.length - 1;
    const last = origin[lastUnit]!;
    const end = last + (text.codePointAt(last)! > 0xffff ? 2 : 1);
    out += text.slice(done, first) + NEUTRAL_OPENER;
    done = end;
  }
  return out + text.slice(done);
}
