import type { Language, RoleCard } from './memory.js';
import {
  COMPANION_ROLE as COMPANION,
  SYSTEM_ROLE as SYSTEM,
  USER_ROLE as USER,
  usableName,
} from './roles.js';

/**
 * A memory too short for a model is carried as it is (docs/design.md §4), but as a memory reads,
 * never as a transcript: each turn quoted after who said it, in the memory's language, with the
 * compressors' convention (the persona's name, or 我 / "I", for the companion; the user's name,
 * or 你 / "you", for the user; a named speaker by name). System turns and stickers are dropped.
 */

const TURN = /^\s*([\p{L}\p{N}_ -]{1,20})[:：]\s*(.*)$/u;
const PLACEHOLDER =
  /\[(?:sticker|emoji|emoticon|image|img|gif|voice|audio|video|file|表情|贴图|图片|语音|视频|文件)(?:[:：][^\]]*)?\]/giu;

function who(
  role: string,
  card: Pick<RoleCard, 'name' | 'userName'>,
  language: Language,
): string | undefined {
  if (SYSTEM.test(role)) return undefined;
  // A card name no memory can write as a speaker ("说说", "You") is no name (roles.ts).
  const userName = usableName(card.userName) ? card.userName : undefined;
  const name = usableName(card.name) ? card.name : undefined;
  if (USER.test(role) || (userName && role === userName))
    return userName ?? (language === 'zh' ? '你' : 'You');
  if (COMPANION.test(role) || (name && role === name)) return name ?? (language === 'zh' ? '我' : 'I');
  return role;
}

/**
 * `text` as the pipeline formats a memory (`role: text` lines, perhaps after the product's
 * processed sections), with each turn's label turned into "你说：“…”" / `You said: "…"`. `roles`:
 * the memory's turn roles (a line "Note: …" is text, not a turn); undefined for a memory stored as
 * one string, whose words nobody is known to have said: a role word's label goes, no one is named.
 */
export function carriedText(
  text: string,
  roles: ReadonlySet<string> | undefined,
  card: Pick<RoleCard, 'name' | 'userName'>,
  language: Language,
): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const match = line.match(TURN);
    const role = match?.[1]?.trim() ?? '';
    const turn =
      match && (roles ? roles.has(role) : USER.test(role) || COMPANION.test(role) || SYSTEM.test(role));
    const speaker = turn && who(role, card, language);
    if (!turn) {
      if (line.trim()) lines.push(line);
      continue;
    }
    const said = match[2]!.replace(PLACEHOLDER, '').trim();
    // A memory stored as one string is nobody's words (issue 36): a label in it goes, no one is named.
    if (!roles && !SYSTEM.test(role) && said !== '') lines.push(said);
    if (!roles || !speaker || said === '') continue;
    lines.push(language === 'zh' ? `${speaker}说：“${said}”` : `${speaker} said: "${said}"`);
  }
  // Nothing but stickers and system turns: the text as it was, without its labels.
  return lines.length ? lines.join('\n') : text.replace(new RegExp(TURN.source, 'gmu'), '$2').trim() || text;
}
