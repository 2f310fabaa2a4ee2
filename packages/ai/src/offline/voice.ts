import { escapeRegExp, type Language, type RoleCard, roleOf } from '@memfade/core';
import { cached } from './cache.js';
import { type Referent, rewriteEn } from './english.js';
import { RULES } from './rules/index.js';

/**
 * Who said what, in the memory's own words (docs/design.md §6). When nobody is named, the companion is 我 / "I",
 * the user 你 / "you"; the role card's `name` replaces 我 / "I", its `userName` 你 / "you"; a speaker the
 * conversation names (LoCoMo's "Caroline") is written by name. Each speaker's own 我 / "I" is rewritten into
 * that referent; every other pronoun (我们, 俩, 你, we, our, they) is as said, since only the speaker's own is
 * certain (issue 36; core faithfulness.ts checks every stage). Role labels (`user:`) never reach a stage.
 */

export type SpeakerKind = 'user' | 'companion' | 'system' | 'named';
export type Speaker = { kind: SpeakerKind; ref: Referent };

const { zh, en } = RULES;

/** Whose a label is: a role word of either language (core roles.ts), else a named speaker's. */
export const speakerKind = (label: string): SpeakerKind => roleOf(label) ?? 'named';

/** The names a memory gives its speakers by convention. */
export const CONVENTION: Record<Language, { user: string; companion: string }> = {
  zh: { user: '你', companion: '我' },
  en: { user: 'you', companion: 'I' },
};

/**
 * Whose name the role card gives. README calls the card the user's companion persona, but some products (and
 * MemoryBank) put the user's own name in it: a name the user introduces themself with ("我叫林小雨", "My name is
 * Emily"), or one only the companion says, addressing the user, is the user's; otherwise the persona's.
 */
export function nameOwner(name: string, userText: string, companionText: string): 'user' | 'companion' {
  const n = escapeRegExp(name);
  const intro = new RegExp(`(?:${zh.selfIntro.pattern.source}|${en.selfIntro.pattern.source})\\s*${n}`, 'i');
  if (intro.test(companionText)) return 'companion';
  if (intro.test(userText)) return 'user';
  // Addressed: the name set off by a mark ("Of course, Luna.", "小琳，…"); not the companion speaking of
  // itself ("Juno would love to go too", "小暖也想去呢"), which made the user's lines "Juno said…".
  const addressed = new RegExp(`${n}(?=\\s*(?:[,，!！.。?？~～]|$))`, 'im');
  return addressed.test(companionText) && !new RegExp(n, 'i').test(userText) ? 'user' : 'companion';
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
    /** A memory stored as one string: its words are nobody's, written as they were (issue 36). */
    readonly nobody = false,
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
    // A companion named as its user ("Juno", "Juno") is 我 / "I": two speakers of one name read as one.
    const companion = owner === 'companion' && persona !== user ? persona : undefined;
    const ref = (name: string | undefined, person: 1 | 2, pronoun: string): Referent =>
      name ? { person: 3, name } : { person, name: pronoun };
    this.user = { kind: 'user', ref: ref(user, 2, convention.user) };
    this.companion = { kind: 'companion', ref: ref(companion, 1, convention.companion) };
    for (const { label } of labels) {
      if (label === undefined || this.byLabel.has(label)) continue;
      const is = (name: string | undefined) => label.toLowerCase() === name?.toLowerCase();
      const kind = is(companion) ? 'companion' : is(user) ? 'user' : speakerKind(label);
      if (kind === 'user' || kind === 'companion') this.byLabel.set(label, this[kind]);
      else this.byLabel.set(label, { kind, ref: { person: 3, name: label } });
    }
  }

  speaker(label: string | undefined): Speaker {
    // Nobody's words keep their 我 / "I": a first person "rewritten" as itself (the user's feelings still count).
    if (this.nobody) return { kind: 'user', ref: { person: 1, name: CONVENTION[this.language].companion } };
    return label === undefined ? this.user : (this.byLabel.get(label) ?? this.user);
  }

  /** The speaker's words, their own 我 / "I" rewritten; `named`: the sentence named its (3rd person) speaker already. */
  rewrite(text: string, label: string | undefined, named = false): string {
    // A stage is rendered many times while its statements are chosen: each text is rewritten once.
    return cached(this.rewritten, `${label ?? ''}\u0000${named}\u0000${text}`, () => {
      const speaker = this.speaker(label).ref;
      const kept: string[] = []; // a title or a quote is what was said, never rewritten ("《我要复仇》" is no "《小暖要复仇》")
      const open = text.replace(VERBATIM, (m) => `\uE000${kept.push(m) - 1}\uE001`);
      const said = this.language === 'zh' ? rewriteZh(open, speaker, named) : rewriteEn(open, speaker, named);
      return said.replace(/\uE000(\d+)\uE001/gu, (_m, i: string) => kept[Number(i)]!);
    });
  }

  private readonly rewritten = new Map<string, string>();
}

/** A word for a person right after a 我 (sticky, read where the 我 ends: "我妈" is a possessor's 我). */
const KIN_AFTER = new RegExp(zh.kin.pattern.source, 'uy');

/** Titles (a song's or a film's without 《》 too: zh bareTitle) and quotes, kept as said. */
const VERBATIM = new RegExp(`《[^》]*》|“[^”]*”|"[^"\\n]*"|${zh.bareTitle.pattern.source}`, 'gu');

/** Where the sentence holding `offset` starts: after the last 。！？ before it. */
function sentenceStartBefore(text: string, offset: number): number {
  for (let i = offset - 1; i >= 0; i--) if ('。！？!?'.includes(text[i]!)) return i + 1;
  return 0;
}

/** The speaker's own 我 (zh.own: not 我们, 我国, 自我) written as the speaker. */
function rewriteZh(text: string, speaker: Referent, named: boolean): string {
  if (speaker.person !== 3) return speaker.person === 2 ? text.replace(zh.own.pattern, '你') : text;
  let lastAt: number | undefined = named ? -1 : undefined; // where the name was last written (-1: the prefix "刘琳说")
  // "我叫刘琳" by 刘琳 goes whole ("刘琳叫刘琳" says it twice; "我很高兴" from "我叫刘琳，很高兴" joins what nobody said).
  const intro = new RegExp(`${zh.introducedAs.pattern.source}${escapeRegExp(speaker.name)}[，,]?`, 'u');
  const introduced = text.replace(intro, '');
  return introduced.replace(zh.own.pattern, (_m, offset: number) => {
    const start = sentenceStartBefore(introduced, offset);
    const at = lastAt;
    lastAt = offset;
    // Said already in this sentence, nobody else named in between ("我给刘琳的建议" is not 自己's; -1: by the prefix).
    const sameSentence = at !== undefined && (at === -1 ? start === 0 : at >= start);
    if (!sameSentence || zh.anotherPerson.pattern.test(introduced.slice(at + 1, offset))) return speaker.name;
    // A name said again ("刘琳说其实刘琳最近…") goes where a clause starts (Chinese drops a subject just named); as an object or
    // possessor ("帮助刘琳", "刘琳的爱好", "因为刘琳妈去年走了") it stays: 自己 is nobody's word, and "因为妈去年走了" is nobody's mother.
    const clauseStart = zh.subjectDropAfter.pattern.test(introduced.slice(start, offset));
    KIN_AFTER.lastIndex = offset + 1;
    return clauseStart && introduced[offset + 1] !== '的' && !KIN_AFTER.test(introduced) ? '' : speaker.name;
  });
}
