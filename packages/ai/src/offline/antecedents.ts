import type { Language } from '@memfade/core';
import { cached } from './cache.js';
import { RULES } from './rules/index.js';
import { chineseNames, type Unit } from './scoring.js';

/**
 * Whole thoughts (docs/design.md §11): a he or she in a core memory names its person there. V2 chooses among V1's
 * sentences: "You said he didn't even notice you cooked his favourite lasagna" could stay without the "Jimmy" it meant.
 * A statement whose he / she names nobody leans on the nearest naming a person (kept only with it), or is not kept.
 */

// Singular third-person pronouns, words for a person, capitalised words that name no one (rules/en).
const { personPronoun, person, owner, placeWord, notAName, womanWord, manWord, feminine, placedName } =
  RULES.en;
/** "her dad", "his mom": a person, but not the one the pronoun means. */
const OWNED_PERSON = new RegExp(`${owner.pattern.source}${person.pattern.source}`, 'gi');

/** The names among capitalised words a text uses (scoring.ts namesIn), the companion's left out. */
export function peopleNames(words: Iterable<string>, companion: string | undefined): string[] {
  const not = companion?.toLowerCase();
  return [...new Set(words)].filter(
    (w) => !notAName.pattern.test(w) && !placeWord.pattern.test(w) && w.toLowerCase() !== not,
  );
}

const PLACELESS = new Map<string, string>();
/** Whether a text uses a name for a person: a whole word ("Q3" is no Q), no place ("Maple Street", "to Denver"). */
function usesName(said: string, name: string): boolean {
  // "she's moving to Denver": a place. Once per text: each is asked about every name, for every pronoun.
  const text = cached(PLACELESS, said, () => said.replace(placedName.pattern, ''), 5_000);
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (/[\p{L}\d]/u.test(text[at + name.length] ?? '') || /[\p{L}\d]/u.test(text[at - 1] ?? '')) continue;
    const next = /^\s+([A-Z][a-z]+)/.exec(text.slice(at + name.length))?.[1];
    if (!next || !placeWord.pattern.test(next)) return true;
  }
  return false;
}

const { zh } = RULES;
const someone = (t: string) => zh.someone.pattern.test(t) || zh.namedPerson.pattern.test(t); // 妈妈, 张国荣演的…
const heOrShe = (u?: Unit) => !!u && zh.heOrShe.pattern.test(u.text) && !someone(u.text);
const ASKS = /[?？问]/u; // a question, asked or reported
const namesSomeone = (u: Unit) => someone(u.text) && !ASKS.test(u.text);
/** A statement naming someone by a word for a person ("妈妈"), neither asking nor leaning on another statement. */
const naming = (u?: Unit) => !!u && !u.needs && namesSomeone(u);
const namesNobody = (u: Unit) => !heOrShe(u) && !ASKS.test(u.text) && !someone(u.text);

/** The words for a person a statement says, as one person each ("爸爸", "老爸", "你爸": 爸); two naming one of them. */
const PERSON_WORDS = new RegExp(zh.someone.pattern.source, 'gu'); // built once: read for every 他 / 她
const personWords = (u: Unit) => (u.text.match(PERSON_WORDS) ?? []).map((w) => w.replace(/^老/u, '')[0]!);
const samePerson = (a: Unit, b: Unit, of = personWords(b)) => personWords(a).some((p) => of.includes(p));

/** How far back a pronoun's person may be named: further back, a reader has lost the thread. */
const STATEMENTS_BACK = 4;

/**
 * Links each statement whose he / she names nobody to the statement naming its person, or marks it an orphan; returns
 * the statements so linked to (a question among them is kept for the person it names). `names`: the people a text may
 * name (not the companion, a memory's I or name); `shown`: a statement as the core memory writes it alone (its
 * attribution may name a speaker); `isUser`: the user's statements (looked at first; their naming is the one kept).
 */
export function anchorPronouns(
  units: Unit[],
  language: Language,
  names: string[],
  shown: (units: Unit[]) => string,
  isUser: (u: Unit) => boolean,
): Set<Unit> {
  const anchors = new Set<Unit>();
  const namesPerson = (text: string) =>
    person.pattern.test(text.replace(OWNED_PERSON, '')) || names.some((n) => usesName(text, n));
  // The speaker's own naming of that person among the few statements before `at`.
  const ownNaming = (at: number, u: Unit, of: Unit) =>
    units
      .slice(Math.max(0, at - STATEMENTS_BACK), at)
      .findLast((w) => naming(w) && isUser(w) === isUser(u) && samePerson(w, of));
  // A Chinese 他 / 她 naming nobody means whom the statement before it named ("我的好朋友小雨只考了60分…她哭了"), in
  // the speaker's own words first ("你爸知道了肯定会骂你", not the companion's "跟爸爸说"); an answer whose question named
  // them ("…你爸爸现在身体怎么样，…他已经好多了"), in the speaker's naming before it ("…爸也是白血病"): V2 keeps no question.
  for (const [i, u] of language === 'zh' ? units.entries() : []) {
    let k = i - 1;
    while (heOrShe(units[k]) && i - k < 3) k--;
    const asked = u.needs && ASKS.test(u.needs.text) && someone(u.needs.text) && u.needs;
    if (asked && heOrShe(u)) u.needs = ownNaming(units.indexOf(asked), u, asked) ?? asked;
    else if (!u.needs && heOrShe(u) && naming(units[k]))
      u.needs = isUser(units[k]!) === isUser(u) ? units[k] : (ownNaming(k, u, units[k]!) ?? units[k]);
    // Leaning on a statement, not a question, that names nobody ("我在以前的学校是守门员。" before "他说他们下午要踢
    // 比赛"): on the nearest that does ("有一个叫李想的男生坐到我旁边，"), even one leaning back itself; none, as it was.
    else if (u.needs && heOrShe(u) && namesNobody(u.needs))
      u.needs = units.slice(Math.max(0, i - STATEMENTS_BACK), i).findLast(namesSomeone) ?? u.needs;
  }
  if (language === 'zh') return anchors;
  const personOf = new Map<Unit, Unit>(); // a statement with a he / she: the one naming its person
  for (const unit of units) {
    if (!personPronoun.pattern.test(unit.text)) continue;
    // What it already leans on may name the person ("…tell your mom. She had a heart attack").
    let root = unit;
    let named = namesPerson(shown([unit]));
    for (; root.needs && !named; root = root.needs) named = namesPerson(root.needs.text);
    if (named) {
      personOf.set(unit, root);
      continue;
    }
    const at = units.indexOf(root);
    const back = units.slice(0, at).reverse(); // the nearest first
    const near = back.slice(0, STATEMENTS_BACK);
    const earlier = back.filter((u) => namesPerson(u.text));
    // Further back only the one person the talk names, by name alone ("Why isn't Jimmy…" seven statements before).
    const one =
      earlier.every((u) => !person.pattern.test(u.text.replace(OWNED_PERSON, ''))) &&
      new Set(names.filter((n) => earlier.some((u) => usesName(u.text, n)))).size === 1;
    // The speaker's own mention first ("My daughter Lily graduated"), not "Congratulations to Lily!".
    const candidates = one ? earlier : near.filter((u) => earlier.includes(u));
    // A word for a woman or a man before a he or she: "the way she taught me" means the grandma
    // three statements back, not "my cousin" just before; one of the other sex is never meant.
    const she = feminine.pattern.test(unit.text);
    const [same, other] = she ? [womanWord.pattern, manWord.pattern] : [manWord.pattern, womanWord.pattern];
    const fitting = candidates.filter((u) => same.test(u.text) || !other.test(u.text));
    const sexed = fitting.filter((u) => same.test(u.text));
    const spoken = (u: Unit) => isUser(u) === isUser(unit);
    const ownMention = (list: Unit[]) => list.find(spoken);
    // Else the speaker's own he just before goes on ("I'm scared he'll say…", then "his brother's wedding"),
    // not the companion's "your partner" between them.
    const goesOn = near.find((u) => spoken(u) && personOf.has(u) && feminine.pattern.test(u.text) === she);
    const found =
      ownMention(sexed) ?? ownMention(fitting) ?? (goesOn && personOf.get(goesOn)) ?? sexed[0] ?? fitting[0];
    // Of a name, the user's own mention ("His name is Biscuit"), not the companion's "Welcome home, Biscuit!"
    // (which drags its own leaning along), else the speaker's.
    const sameName = (u: Unit) => names.some((n) => usesName(found!.text, n) && usesName(u.text, n));
    const mentions = found ? earlier.filter(sameName) : [];
    const antecedent = mentions.find(isUser) ?? mentions.find(spoken) ?? found;
    if (antecedent && !antecedent.orphan) {
      root.needs = antecedent;
      anchors.add(antecedent);
      personOf.set(unit, antecedent);
    } else unit.orphan = true;
  }
  return anchors;
}

/**
 * A talk about a place moving to another ("恭王府就在附近"): what follows naming no place, or it again, leans on the
 * statement naming it, of a list the one naming which ("你说天坛你知道…"). Returns the units still on the topic.
 */
export function followPlaces(units: Unit[], topic: string): Unit[] {
  let [mover, places]: [Unit | undefined, string[]] = [undefined, []]; // the statement naming the place, its places
  return units.filter((u) => {
    const named = zh.address.pattern.test(u.text) ? [] : chineseNames(u.text);
    const again = (n: string) => places.length === 1 && !!mover?.text.includes([...n].slice(-3).join(''));
    const titles = places.every((n) => n.startsWith('《')); // "《红高粱》、《活着》": a he or she is the person talked of
    if (u.text.includes(topic)) mover = undefined;
    else if (named.some((n) => !topic.includes(n) && !again(n))) [mover, places] = [u, [...new Set(named)]];
    else if (mover && !named.length && !u.needs && !(titles && zh.heOrShe.pattern.test(u.text)))
      u.needs = mover;
    return !mover;
  });
}
