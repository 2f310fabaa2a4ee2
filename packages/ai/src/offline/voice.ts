import type { Language, RoleCard } from '@memfade/core';
import { PLURAL_TO_THEY, PLURAL_TO_YOU, rewriteEn } from './english.js';

/**
 * Who said what, in the memory's own words (docs/design.md §6: a companion's memory says who said
 * what, in the companion's voice). The convention, when nobody is named: the companion is 我 / "I",
 * the user is 你 / "you"; the role card's `name` (the persona) replaces 我 / "I", its `userName`
 * replaces 你 / "you"; a speaker the conversation names (LoCoMo's "Caroline") is written by name. Each speaker's first-person words
 * are rewritten into that referent, and "you" into the one spoken to, so the two speakers' "I"
 * never run together. Role labels (`user:`) never reach a stage.
 */

export type SpeakerKind = 'user' | 'companion' | 'system' | 'named';

/** How a speaker is written: 1st person (我 / I), 2nd (你 / you) or 3rd (a name). */
export interface Referent {
  person: 1 | 2 | 3;
  name: string;
  /** A name already said in this line: English goes on with "they" ("Caroline talked about their talk"). */
  they?: boolean;
}

export interface Speaker {
  kind: SpeakerKind;
  ref: Referent;
}

const USER_ROLES = new Set(['user', 'human', 'usr', 'member', 'customer', '用户', '人类']);
const COMPANION_ROLES = new Set([
  'assistant',
  'ai',
  'bot',
  'model',
  'companion',
  'agent',
  'chatbot',
  'gpt',
  '助手',
  '机器人',
  '伴侣',
]);
const SYSTEM_ROLES = new Set(['system', 'tool', 'function', 'developer', '系统']);

export function speakerKind(label: string): SpeakerKind {
  const role = label.trim().toLowerCase();
  if (USER_ROLES.has(role)) return 'user';
  if (COMPANION_ROLES.has(role)) return 'companion';
  if (SYSTEM_ROLES.has(role)) return 'system';
  return 'named';
}

const CONVENTION: Record<Language, { user: string; companion: string }> = {
  zh: { user: '你', companion: '我' },
  en: { user: 'you', companion: 'I' },
};

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whose name the role card gives. README calls the card the user's companion persona, but some
 * products (and MemoryBank) put the user's own name in it: a name the user introduces themself
 * with ("我叫林小雨", "My name is Emily"), or one only the companion says (addressing the user),
 * is the user's; otherwise the persona's.
 */
export function nameOwner(name: string, userText: string, companionText: string): 'user' | 'companion' {
  const n = escaped(name);
  const intro = new RegExp(`(?:我叫|我是|我的名字是|我名叫|my name is|i'm|i am|call me)\\s*${n}`, 'i');
  if (intro.test(companionText)) return 'companion';
  if (intro.test(userText)) return 'user';
  const said = (text: string) => new RegExp(n, 'i').test(text);
  return said(companionText) && !said(userText) ? 'user' : 'companion';
}

/** The speakers of one conversation, by label; lines without a label are the user's (a note, a monologue). */
export class Voice {
  private readonly byLabel = new Map<string, Speaker>();
  readonly user: Speaker;
  readonly companion: Speaker;

  constructor(
    readonly language: Language,
    labels: { label: string | undefined; text: string }[],
    roleCard: Pick<RoleCard, 'name' | 'userName'>,
  ) {
    const convention = CONVENTION[language];
    const text = (kind: SpeakerKind) =>
      labels
        .filter((l) => (l.label === undefined ? 'user' : speakerKind(l.label)) === kind)
        .map((l) => l.text)
        .join('\n');
    const persona = roleCard.name?.trim() || undefined;
    const userName = roleCard.userName?.trim() || undefined;
    // A card without userName whose name is plainly the user's (MemoryBank's, some products') names the user.
    const owner = persona && !userName ? nameOwner(persona, text('user'), text('companion')) : 'companion';
    const user = userName ?? (owner === 'user' ? persona : undefined);
    const companion = owner === 'companion' ? persona : undefined;
    this.user = {
      kind: 'user',
      ref: user ? { person: 3, name: user } : { person: 2, name: convention.user },
    };
    this.companion = {
      kind: 'companion',
      ref: companion ? { person: 3, name: companion } : { person: 1, name: convention.companion },
    };
    for (const { label } of labels) {
      if (label === undefined || this.byLabel.has(label)) continue;
      const kind =
        companion && label.toLowerCase() === companion.toLowerCase()
          ? 'companion'
          : user && label.toLowerCase() === user.toLowerCase()
            ? 'user'
            : speakerKind(label);
      const speaker =
        kind === 'user'
          ? this.user
          : kind === 'companion'
            ? this.companion
            : { kind, ref: { person: 3 as const, name: label } };
      this.byLabel.set(label, speaker);
    }
  }

  speaker(label: string | undefined): Speaker {
    return label === undefined ? this.user : (this.byLabel.get(label) ?? this.user);
  }

  /** The one a speaker talks to: user and companion to each other; of two named speakers, the other. */
  addressee(label: string | undefined): Referent | undefined {
    const speaker = this.speaker(label);
    if (speaker.kind === 'user') return this.companion.ref;
    if (speaker.kind === 'companion') return this.user.ref;
    const others = [...this.byLabel.entries()].filter(([l, s]) => l !== label && s.kind !== 'system');
    if (others.length === 1) return others[0]![1].ref;
    return undefined;
  }

  /**
   * The speaker's words as the memory writes them: first and second person rewritten. `named`:
   * the sentence has named its (3rd person) speaker already, so English goes on with "they".
   */
  rewrite(text: string, label: string | undefined, named = false): string {
    // A stage is rendered many times while its statements are chosen: each text is rewritten once.
    const key = `${label ?? ''}\u0000${named}\u0000${text}`;
    let out = this.rewritten.get(key);
    if (out === undefined) {
      const speaker = this.speaker(label).ref;
      const addressee = this.addressee(label);
      out =
        this.language === 'zh'
          ? rewriteZh(text, speaker, addressee, this.speaker(label).kind === 'companion')
          : rewriteEn(text, speaker, addressee, named, this.pluralsOf(label));
      this.rewritten.set(key, out);
    }
    return out;
  }

  private readonly rewritten = new Map<string, string>();

  /**
   * What a speaker's "we" becomes: the user's is "you" (all of them), a named speaker's (a named
   * persona's too) "they"; the companion speaking as "I" keeps its "we".
   */
  private pluralsOf(label: string | undefined): Record<string, string> | undefined {
    const { kind, ref } = this.speaker(label);
    if (kind === 'system' || ref.person === 1) return undefined;
    return ref.person === 2 ? PLURAL_TO_YOU : PLURAL_TO_THEY;
  }
}

// --- Chinese ---

const ZH_PRONOUN = /谢谢你|谢谢您|感谢你|感谢您|咱们|我们|你们|您们|我|你|您/g;

function rewriteZh(
  text: string,
  speaker: Referent,
  addressee: Referent | undefined,
  companion: boolean,
): string {
  return text.replace(ZH_PRONOUN, (m, offset: number) => {
    const next = text.charAt(offset + m.length);
    const previous = text.charAt(offset - 1);
    if (m.startsWith('谢谢') || m.startsWith('感谢')) return m.slice(0, 2);
    // The companion's 我们 is the companion and its user; anyone else's, them and theirs.
    if (m === '我们') return companion && addressee ? inclusiveZh(speaker, addressee) : pluralZh(speaker);
    if (m === '咱们') return addressee ? inclusiveZh(speaker, addressee) : pluralZh(speaker);
    if (m === '你们' || m === '您们') return m;
    // 我国, 我校, 我市: an institution's "our", not the speaker; 自我, 忘我: a word.
    if (m === '我')
      return (previous !== '' && '自忘'.includes(previous)) ||
        (next !== '' && '国校市省司院厂军方'.includes(next))
        ? m
        : speaker.name;
    // 你 / 您: the one spoken to; a greeting or a word that only contains it stays.
    if (next === '好' || (previous !== '' && previous === '迷') || !addressee) return m;
    return addressee.name;
  });
}

/** The speaker and the one spoken to: 我们 in the companion's voice, "你和小暖" otherwise. */
function inclusiveZh(speaker: Referent, addressee: Referent): string {
  const pair = [speaker.name, addressee.name];
  return pair.includes('我') && pair.includes('你') ? '我们' : `${addressee.name}和${speaker.name}`;
}

function pluralZh(ref: Referent): string {
  if (ref.person === 1) return '我们';
  if (ref.person === 2) return '你们';
  return `${ref.name}他们`;
}
