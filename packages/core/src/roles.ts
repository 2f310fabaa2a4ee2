/**
 * Turn labels that name a role, not a person (docs/design.md §6), in both languages: the user's, the
 * companion's and the system's. A log kept from the user's side labels them 我 / "me" and 你 / "you".
 * The offline compressor reads labels with these too (roleOf, in its voice.ts).
 */
export const USER_ROLE = /^(?:user|human|usr|member|customer|me|i|用户|人类|我)$/i;
export const COMPANION_ROLE =
  /^(?:assistant|ai|bot|model|companion|agent|chatbot|gpt|you|助手|机器人|伴侣|你)$/i;
export const SYSTEM_ROLE = /^(?:system|tool|function|developer|系统)$/i;

/**
 * A card name no memory can write as a speaker: a pronoun ("你", "You") or a name ending on the words
 * that frame speech ("说说", "小问": "说说说…" reads as nobody). The offline compressor reads the card
 * without it, and the faithfulness check takes it as no name (a name "You" made "you got it" unsaid).
 */
const UNUSABLE_NAME =
  /^(?:我|你|您|他|她|它|咱)(?:们|俩)?$|[说问]$|^(?:i|me|you|we|us|he|him|she|her|they|them|it)$/i;

export const usableName = (name: string | undefined): name is string =>
  !!name?.trim() && !UNUSABLE_NAME.test(name.trim());

/** Which role a turn label names, or undefined for a person's name ("Caroline", "小暖"). */
export function roleOf(label: string): 'user' | 'companion' | 'system' | undefined {
  const role = label.trim();
  if (USER_ROLE.test(role)) return 'user';
  if (COMPANION_ROLE.test(role)) return 'companion';
  return SYSTEM_ROLE.test(role) ? 'system' : undefined;
}
