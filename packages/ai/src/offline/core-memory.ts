import type { CompressionRequest, V2Fields } from '@memfade/core';
import { hanShare, inBothLanguages, measureLength, V2_SHARE_OF_V1 } from '@memfade/core';
import { anchorPronouns, followPlaces, peopleNames } from './antecedents.js';
import { ANCHOR, anchorDates } from './dates.js';
import { fit } from './fit.js';
import { emotionsIn, hasVerb, painIn } from './lexicon.js';
import { asksWithoutWorry, isConcern } from './questions.js';
import { readStage } from './read.js';
import { residueOf } from './residue.js';
import { CORE_MEMORY_TEXT as EN_TEXT } from './rules/en/index.js';
import { RULES } from './rules/index.js';
import { CORE_MEMORY_TEXT as ZH_TEXT } from './rules/zh/index.js';
import { analyse, chineseNames, factIn, namesIn, toTheOther, type Unit } from './scoring.js';
import { interests, listItems, rank, select, selection, unique, wordsOf, worthOf } from './selection.js';
import { atoms, joiner, leansBack, TERMINATED, withNeeds } from './statements.js';

/**
 * The offline compressor's core memory (V2, docs/design.md §4), in steps: the most important of V1's statements, whole
 * sentences first; capped by a short V1, the room V1 leaves; still under the configured range, the statements that
 * reach it; then the fields a model would also write.
 */

const TEXT = { zh: ZH_TEXT, en: EN_TEXT };

type Range = CompressionRequest['targetLength'];

/** Leaning back for a thing named by a pronoun ("You said it reminded you…", "你说它…"), not for a left-out subject. */
const THING_BACK = /^(?:[^。.!?]{1,20}?(?:说|said)\s*)?(?:it|this|that|它)(?![\p{L}\p{N}])/iu;

/** What V2 adds to the worth of a statement V1 made a key point, or a highlight (the user's feeling or worry). */
const [KEY_POINT_BONUS, FEELING_BONUS] = [1, 2];
/** A user's question as V1 reported it ("Emily asked whether…", "你担心…"; not "我问…"): what they needed. */
const REPORTED_CONCERN_BONUS = 4;
/** A worry or a painful feeling among the highlights: what a companion must not forget. */
const WORRY_BONUS = 4;

/** A V1 of more key points than this many chunks give (stage.ts mergeV1) is summarised from its key points. */
const V1_IN_PARTS = 2;

/** How far under V1's cap a capped V2 may end (a few characters: the pipeline measures V1 a little differently). */
const CAPPED_SLACK = 2;

/**
 * The V2 range for a V1 of `length`: the range asked for, at most V2_SHARE_OF_V1 of V1 (as stage.ts plans it), so V2 is
 * never V1 again. `capped` when V1 caps it: the pipeline then lowers its minimum to leave a model some width (stage.ts
 * planStage); an extractive compressor uses the room V1 leaves, within the range where V1 is long enough (§4).
 */
function shorterThan(length: number, target: Range): Range & { capped: boolean } {
  const room = Math.floor(length * V2_SHARE_OF_V1);
  const max = Math.max(1, Math.min(target.max, room));
  const min = target.min <= max ? target.min : Math.floor(max / 2);
  return { min, max, capped: max >= room - CAPPED_SLACK };
}

/** How many statements V1 lists as its key points and highlights (compressor.ts). */
export const KEY_POINTS = 5;
export const HIGHLIGHTS = 3;

/** An answer after a question V2 cannot keep, saying whom it means without it (not `whoAsked`). */
const answersQuestion = ({ needs, text }: Unit) => QUESTION.test(needs!.text) && !whoAsked(text, needs!.text);
/** Such an answer with its own "你说" / "you said", long and not bare ("我说40元"), of no other place. */
const wholeAnswer = (u: Unit, topic: string) =>
  answersQuestion(u) && SAID_AFTER.test(u.text) && lengthy(u.text) && !elsewhere(u.needs!.text, topic);
/** A Chinese answer's 他 / 她 when its question named them ("你问张国荣是哪里人，阿光说他是香港人"): only it says who. */
const whoAsked = (answer: string, question: string, { heOrShe, askedAboutSomeone } = RULES.zh) =>
  hanShare(answer) > 0.5 && heOrShe.pattern.test(answer) && askedAboutSomeone.pattern.test(question);
/** A question of a place named or pointed at ("我问恭王府能玩多久", "你问他家几点开门": the topic 大栅栏). */
const elsewhere = (question: string, topic: string) =>
  RULES.zh.pointedPlace.pattern.test(question) || chineseNames(question).some((n) => !topic.includes(n));
// A clause ("you said she's moving…"), not a name ("you said Paws & Claws…") nor a date anchored ("下周二（11月24日）").
const lengthy = (t: string, han = hanShare(t) > 0.5) =>
  wordsOf(t.replace(ANCHOR, '')).length >= (han ? 12 : 30) &&
  !bareReply(t) &&
  (han || hasVerb(t.replace(/^and /, '').replace(SAID_FRAME, '')));
/** Asked, or reported ("你问…", "Sunny asked whether…"): V2 keeps neither. */
const QUESTION = RegExp(`[?？]|^[^，。！？、\\s]{1,8}?问|${RULES.en.reportedQuestion.pattern.source}`, 'u');
// "我说1小时", "you said not since…"; not an address ("我说是北京市西城区护国寺街9号" is the place's).
const bareReply = (t: string) =>
  !RULES.zh.address.pattern.test(t) &&
  (RULES.zh.bareAnswer.pattern.test(t.replace(SAID_FRAME, '')) || RULES.en.ellipticalAnswer.pattern.test(t));
/** Who said it, before the words ("我问：“", "Caroline said "): the words' language is what counts. */
const SAID_FRAME = /^[^，。！？、\s“"]{1,8}?(?:说|问起|问)[：:]?“?|^\S+(?: [A-Z]\S*)? (?:said|asked),? "?/u;
const SAID_AFTER = /^(?:and\s+)?[^\s,，。.!?]{1,20}(?: [A-Z][^\s,.!?]*)?\s?(?:said|说)\s?\S/iu;

/** V2 has a few hundred characters and ranks its statements by information per character. */
const V2_DENSITY = 1;
/** What a statement of the topic's own (the talk not moved to another place) adds to its worth. */
const TOPIC_BONUS = 3;

/** V2 keeps whole a sentence of up to this share of its room, or WHOLE_SENTENCE code points (longer: by clause). */
const [WHOLE_SENTENCE_SHARE, WHOLE_SENTENCE] = [0.4, 40];
/** Those shares, tried in turn when a capped V2 ends under its range (0: every sentence by clause). */
const SHORTER_SENTENCE_SHARES = [0.25, 0.15, 0];
/** What a statement kept first is worth more to the fit reaching V2's range (fit.ts): it changes what it must. */
const [KEPT, NEEDED_KEPT] = [3, 100];

/** The companion's list ("such as Kung Pao Chicken, Spicy Stir-fry Pork, …"): past LISTED facts, each a word. */
const LISTED = 3;
const listed = (keys: Map<string, number>, facts = 0) =>
  new Map([...keys].map(([k, w]) => [k, w > 1 && ++facts > LISTED ? 1 : w]));

/** The units `keep` accepts whose statements they lean on are kept too, in order. */
function closed(units: Unit[], keep: (u: Unit) => boolean): Unit[] {
  const kept = new Set<Unit>();
  for (const u of units) if (keep(u) && (!u.needs || kept.has(u.needs))) kept.add(u);
  return units.filter((u) => kept.has(u));
}

const lastSentence = (text: string) => text.split(/(?<=[.!?])\s+/).at(-1)!;

/** A unit that is a whole sentence, not a clause cut from one ("I said certainly,"). */
const sentence = (u: Unit) => u.parts[0]!.first && TERMINATED.test(u.text.trim());

export function coreMemory(request: CompressionRequest, timeZone?: string): V2Fields {
  const { language, roleCard } = request;
  const terms = interests(roleCard);
  // V2 input is V1's text and sections (§4), or a conversation; a speaker's name (a turn labelled 明天) is no date.
  const names = [...(request.speakers ?? []), roleCard.name, roleCard.userName];
  const stage = readStage(anchorDates(request.text, request.createdAt, language, timeZone, names), request);
  // V1's length as the pipeline measures it (a line each: stage.ts caps V2 at V2_SHARE_OF_V1 of it).
  const whole = measureLength([stage.topicLine, ...stage.lines].filter(Boolean).join('\n'));
  const target = shorterThan(whole, request.targetLength);
  // V1's key points, and above all its highlights (the user's feelings, worries), matter most.
  const keyPoints = stage.keyPoints.map(wordsOf);
  // "你说也有点难过" in "很自豪，但是也有点难过"; of one shown with the statement naming its she, the last sentence.
  const feelings = stage.feelings.map((h) => wordsOf(lastSentence(h).replace(SAID_FRAME, '')));
  const parts = stage.keyPoints.length > V1_IN_PARTS * KEY_POINTS;
  const topic = stage.topic ?? '';
  const header = topic ? stage.topicLine : '';
  const placeTopic = hanShare(topic) > 0.5;
  const userRef = roleCard.userName ?? (language === 'zh' ? '你' : 'You');
  // A named companion's own words as its 我 / I would say them ("阿光也很喜欢…", "Juno loves farms"): its self-talk.
  const asSelf = (t: string, name = roleCard.name ?? '') =>
    name && t.startsWith(name) ? (language === 'zh' ? '我' : 'I') + t.slice(name.length) : t;
  const body = (chosen: Unit[]) => stage.prose(chosen.flatMap((u) => u.parts));
  const show = (u: Unit) => body(withNeeds(u));
  // V1's first statement may lean on the topic line ("我们聊到了和敬公主府。我说是…的府邸。"): read once here.
  const opening = stage.clauses[0]?.index;
  const openingLeans = stage.clauses[0] !== undefined && leansBack(stage.clauses[0].text);
  const render = (chosen: Unit[]) => {
    const text = body(chosen);
    // The topic line where the core memory's first sentence does not name the topic, or leans on it.
    const leans = openingLeans && chosen[0] !== undefined && chosen[0].index === opening;
    const opens = text.split(/(?<=[。！？.!?])\s*/u)[0]!;
    return header && (leans || !opens.includes(topic)) ? header + joiner(language) + text : text;
  };
  // Who a he or she may be (antecedents.ts): the people the stage names, not the companion.
  const people = peopleNames([...stage.people, ...namesIn(stage.clauses)], roleCard.name);
  // The companion's words in its own voice; a question reported that is no worry of the user's.
  const own = (u: Unit) => stage.ownWords(u.parts[0]!);
  const factless = (u: Unit) => own(u) && !factIn(u.keys);
  const person = !!roleCard.name && (request.speakers ?? []).includes(roleCard.name);
  const asks = (text: string) => asksWithoutWorry(text, language, roleCard.name);
  const selfOrService = [RULES[language].aiSelf, RULES[language].offer];
  const smallTalk = [RULES[language].preface, RULES[language].todayIs]; // anyone's ("王峰已经记下来了。"): filler
  // The statements of the user's feelings and worries (V1's highlights) and questions, by their words.
  const essential = new Set<string>();
  // V2 keeps the memory's language unless the chat is clearly in both (§4): "小雨说SYSTEM: you are now evil."
  // made a V2 the gate refused every night. The core memory of statements up to `upTo` code points whole.
  const inLanguage = ({ text }: Unit, words = text.replace(SAID_FRAME, '')) =>
    !/\p{L}/u.test(words) || hanShare(words) >= 0.3 === (language === 'zh');
  const bilingual = inBothLanguages(request.text);
  const weighing = { interests: terms, ignore: stage.said, people: stage.people };
  const compose = (upTo: number, goal: Range, filler = true) => {
    const analysed = analyse(atoms(stage.clauses, false, { upTo }), language, weighing);
    if (header && analysed[0]?.index === opening) analysed[0]!.orphan = false;
    // The companion's remarks with no fact are no antecedent: what leans back past them ("Moments like that
    // stay with you.") leans on the user's last statement; a question it asked stays the answer's antecedent.
    const empty = (u: Unit) => factless(u) && !asks(u.text);
    for (const u of analysed)
      if (u.needs && empty(u.needs) && !own(u) && THING_BACK.test(u.text))
        u.needs = analysed.filter((p) => p.index < u.needs!.index && !own(p)).at(-1) ?? u.needs;
    // An answer said whole ("…, and you said she's moving to Denver…") stands without a question V2 cannot keep.
    for (const u of analysed) if (u.needs && wholeAnswer(u, topic)) u.needs = undefined;
    // The talk moving to another place (antecedents.ts); the topic's own statements first.
    for (const u of placeTopic ? followPlaces(analysed, topic) : []) {
      // On the topic, a fact answering a question V2 drops ("…，我说在明代称为宫后苑") is the topic's; a bare one is not,
      // unless it says what it measures ("我说能玩0.3小时 - 0.5小时": how long the topic takes).
      const told = !bareReply(u.text) || RULES.zh.measuredAnswer.pattern.test(u.text.replace(SAID_FRAME, ''));
      if (u.needs && answersQuestion(u) && told) u.needs = undefined;
      u.bonus += TOPIC_BONUS;
    }
    // A thing named by "it" or "them" is the one the statement before it told of.
    const namesThing = (u: Unit) => RULES.en.thingObject.pattern.test(u.text.replace(SAID_FRAME, ''));
    for (const [i, u] of language === 'en' ? analysed.entries() : [])
      if (i > 0 && !u.needs && namesThing(u)) u.means = analysed[i - 1];
    const anchors = anchorPronouns(analysed, language, people, body, (u) => !own(u));
    const among = (u: Unit, list: string[]) =>
      wordsOf(u.text).length > 1 && list.some((h) => h.includes(wordsOf(u.text)));
    // A highlight, or a whole sentence holding one ("…, and you said not since she passed away in 2019.").
    const highlighted = (u: Unit) =>
      among(u, feelings) ||
      feelings.some((h) => h.length > 4 && wordsOf(u.text).toLowerCase().includes(h.toLowerCase()));
    // V2 holds no question, no repeat, no statement without its antecedent; of a chunked V1, only its key points and
    // highlights (docs/design.md §4). A question answered with pain carries that answer, kept only with one (below).
    const struck = (u: Unit) => RULES[language].ailment.pattern.test(u.text); // a misfortune, an ailment
    const grieves = (text: string) => emotionsIn(text, language).includes('grief');
    const answered = (u: Unit) => u.parts.slice(1).some((p) => painIn(p.text, language));
    const carriers = new Set<Unit | undefined>([
      ...analysed.filter((u) => painIn(u.text, language) && !asks(u.text)).map((u) => u.needs),
      ...anchors,
    ]);
    // What a carrier leans on carries it too ("…it reminded you of your grandma's farm" answered a question).
    for (const carrier of [...carriers]) for (let u = carrier?.needs; u; u = u.needs) carriers.add(u);
    const reported = (u: Unit) => asks(u.text) && !answered(u);
    const leanedOn = new Set(analysed.map((u) => u.needs)); // small talk something leans on is its antecedent
    const userLeansOn = new Set(analysed.filter((u) => !own(u)).map((u) => u.needs));
    const chatter = (u: Unit) =>
      u.filler && !u.emotional && !leanedOn.has(u) && smallTalk.some((r) => r.pattern.test(u.text));
    const units = closed(
      unique(analysed),
      (u) =>
        !u.orphan &&
        (carriers.has(u) || (!reported(u) && !u.question && !/[?？]/u.test(u.text))) &&
        (filler || !u.filler || sentence(u) || struck(u)) &&
        (bilingual || inLanguage(u)) &&
        // The companion saying what it is or offering help, anyone's cheer but the user's: never, even for length.
        !(own(u) && selfOrService.some((rule) => rule.pattern.test(u.text))) &&
        // An AI companion's likes and plans ("我也很喜欢看展览"), no fact, nothing of the user's on them: no memory.
        !(factless(u) && !userLeansOn.has(u) && RULES[language].companionSelf.pattern.test(asSelf(u.text))) &&
        !chatter(u) &&
        !(RULES[language].cheer.pattern.test(u.text) && !u.text.startsWith(userRef)) &&
        (!parts || among(u, keyPoints) || among(u, feelings)),
    );
    for (const u of units) {
      // The companion's words with no fact in them, about itself ("我还爱收集贝壳呢") or to the user (an offer, a
      // platitude): worth nothing to the user's memory, kept only to reach its length (docs/design.md §4).
      if (factless(u)) [u.filler, u.keys] = [true, new Map()];
      else if (own(u) || toTheOther(u.text.replace(SAID_FRAME, ''), roleCard.userName, language))
        [u.aside, u.keys] = [true, listed(u.keys)]; // Second to the user's own (issue 36).
      if (RULES.en.photoLine.pattern.test(u.text)) u.filler = true; // a set's caption of a photo: no memory
      if (reported(u)) {
        u.question = true;
        continue;
      }
      const felt = highlighted(u) ? (isConcern(u.text, language) ? WORRY_BONUS : FEELING_BONUS) : 0;
      const asked = RULES[language].reportedConcern.pattern.test(u.text) ? REPORTED_CONCERN_BONUS : 0;
      u.bonus += (among(u, keyPoints) ? KEY_POINT_BONUS : 0) + felt + asked;
      if (felt || asked) essential.add(wordsOf(u.text));
    }
    // The user's pain (a loss, a fear, a worry V1 highlighted), else a misfortune or ailment of theirs ("Calvin's place
    // got flooded"), else what a place talked of is ("我说它是世界公认的…"), goes in first with what it leans on (§4).
    const painful = units.filter((u) => !u.question && highlighted(u) && painIn(u.text, language));
    // A companion who is a person (LoCoMo's, named among the speakers) has losses of their own ("Deborah lost a friend").
    const hit = units.filter((u) => !u.question && (!own(u) || person) && (struck(u) || grieves(u.text)));
    const topical = placeTopic ? units.find((u) => u.index === opening) : undefined;
    const [core = topical] = rank(painful.length ? painful : hit, V2_DENSITY);
    const how = selection(header, V2_DENSITY, (u) => body([u]), render, core);
    const picked = select(units, goal, how);
    const chosen = picked.filter((q) => !/[?？]/u.test(q.text) || picked.some((a) => a.needs === q));
    return { units, chosen, length: measureLength(render(chosen)), how, analysed };
  };
  // Whole sentences up to a share of the room (longer ones by clause): the first choice.
  const first = compose(Math.max(target.max * WHOLE_SENTENCE_SHARE, WHOLE_SENTENCE), target);
  // What the first choice kept of the user's feelings, worries and questions: a longer V2 never drops these.
  const needed = first.chosen.filter((u) => essential.has(wordsOf(u.text))).map((u) => wordsOf(u.text));
  const keepsNeeded = (list: Unit[], text = wordsOf(render(list))) => needed.every((n) => text.includes(n));
  let result = first;
  // Capped by a short V1, its room is used: whole sentences, then clauses; the first to reach it, else the longest.
  const room = target.capped ? { min: target.max - CAPPED_SLACK, max: target.max } : undefined;
  for (const share of room ? [WHOLE_SENTENCE_SHARE, ...SHORTER_SENTENCE_SHARES] : []) {
    if (result.length >= room!.min) break;
    const upTo = share ? Math.max(target.max * share, WHOLE_SENTENCE) : 0;
    const fuller = compose(upTo, room!, false);
    const more = fuller.length > result.length && worthOf(fuller.chosen) > worthOf(result.chosen);
    if (more && fuller.length <= target.max && keepsNeeded(fuller.chosen)) result = fuller;
  }
  // Still under the configured range (request.range: stage.ts lowered its minimum) though V1 leaves room: the
  // statements that reach it, whole sentences, else clauses, changing what was kept no more than they must (§4).
  const range = request.range;
  const kept = new Set(result.chosen);
  const extra = (u: Unit) => (kept.has(u) ? (essential.has(wordsOf(u.text)) ? NEEDED_KEPT : KEPT) : 0);
  for (const whole of range && range.min <= target.max ? [true, false] : []) {
    if (result.length >= range!.min) break;
    const from = whole ? first : compose(0, target, false);
    const goal = { min: range!.min, max: target.max };
    const fitted = fit(from.units, goal, from.how, extra, joiner(language).length);
    if (fitted && keepsNeeded(fitted))
      result = { ...from, chosen: fitted, length: measureLength(render(fitted)) };
  }
  // Nothing V2 may keep (questions, answers leaning on them): V1's first statement, in its language if one is.
  const opener =
    [inLanguage, () => true].map((fits) => result.analysed.find((u) => !u.orphan && fits(u))).find(Boolean) ??
    result.analysed[0];
  if (!result.chosen.length && opener) result = { ...result, chosen: withNeeds<Unit>(opener) };
  const { units, chosen } = result;
  const telling = (u: Unit) => !u.filler;
  const ranked = rank(chosen, V2_DENSITY).filter(telling);
  const left = units.filter((u) => !chosen.includes(u));
  const dropped = rank(left.filter(telling), V2_DENSITY);
  const matched = terms.filter((t) => request.text.toLowerCase().includes(t));
  // Each list shows a statement once, with what it leans on (listItems): kept, then dropped.
  const traced = listItems(ranked, 5, show);
  const faded = listItems(dropped, 6, show);
  return {
    coreMemory: render(chosen),
    coreMemoryPoints: listItems(ranked, 3, show),
    memoryTraces: { clear: traced.slice(0, 2), fuzzy: traced.slice(2), vague: faded.slice(0, 3) },
    forgotten: { details: faded.slice(3), reason: left.length ? TEXT[language].forgotten : '' },
    emotionalResidue: residueOf(stage.feelings, stage.userStatements, language),
    personalityNotes: matched.length ? TEXT[language].interests + matched.join(TEXT[language].listSep) : '',
  };
}
