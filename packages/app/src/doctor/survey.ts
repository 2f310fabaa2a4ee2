import { buildPrompt, JSON_SCHEMAS, PROVIDER_PROMPT_TOKENS } from '@memfade/ai';
import {
  BadInputError,
  costOf,
  errorMessage,
  estimateTokens,
  formatMemoryForPrompt,
  formatPersonality,
  type Memory,
  measureLength,
  memoryLanguage,
  type PriceTable,
  parseMemory,
  parseRoleCard,
  productNamed,
  type RoleCard,
  rawText,
  refuseUnsupportedLanguage,
  type StagePolicy,
  v1Target,
  ZERO_USAGE,
} from '@memfade/core';
import {
  type CanonicalMemory,
  type DateFormat,
  type FoundCard,
  idText,
  type Mapping,
  type NightCalls,
  valueAt,
} from '@memfade/db';
import { type CardCounts, cardPairs, noCards } from './card-pairs.js';

/**
 * What `memfade doctor` concludes from a sample of the product's memories: which fields memfade
 * can read, what the memories look like, and what a night of them will cost. Pure: diagnose.ts
 * gathers the inputs (read-only); the CLI prints the report.
 */

/** One field memfade reads from every memory, and how the sample holds it. */
export interface FieldCheck {
  /** The field's path in the product's documents. */
  field: string;
  /** The mapping key that names it (MEMFADE_MAPPING, docs/mapping.md). */
  key: string;
  /** What memfade expects there. */
  expected: string;
  ok: number;
  missing: number;
  wrongType: number;
  /** A memory id showing the problem, when there is one. */
  example?: string;
}

const DATE_EXPECTED: Record<DateFormat, { expected: string; valid: (v: unknown) => boolean }> = {
  date: { expected: 'a BSON date', valid: (v) => v instanceof Date },
  iso: {
    expected: 'an ISO 8601 date string (UTC)',
    valid: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  },
  'epoch-seconds': { expected: 'a number of seconds since 1970', valid: (v) => typeof v === 'number' },
  'epoch-millis': { expected: 'a number of milliseconds since 1970', valid: (v) => typeof v === 'number' },
};

interface FieldRule {
  path: string;
  key: string;
  expected: string;
  valid: (value: unknown) => boolean;
  /** Where the value is read: the product document at `path` unless given (joined turns). */
  read?: (doc: CanonicalMemory) => unknown;
}

/** The fields memfade reads from every memory, at the mapping's paths, and what each must hold. */
function fieldRules(mapping: Mapping): FieldRule[] {
  const f = mapping.fields;
  // An id in any form memfade reads one (db ids.ts): a string, an ObjectId, an integer.
  const anId = (v: unknown) => (idText(v) ?? '') !== '';
  const expected = 'a string, ObjectId or integer id';
  return [
    { path: f.memoryId, key: 'memory.id', expected, valid: anId },
    { path: f.userId, key: 'memory.userId', expected, valid: anId },
    {
      path: f.partnerId,
      key: 'memory.partnerId',
      expected: 'an id (optional)',
      valid: (v) => v === undefined || anId(v),
    },
    { path: f.createdAt, key: 'memory.createdAt.path', ...DATE_EXPECTED[mapping.createdAtFormat] },
    ...stageAndConversation(mapping),
  ];
}

/** The stage (not in the product document in side-collection mode) and the conversation (maybe joined). */
function stageAndConversation(mapping: Mapping): FieldRule[] {
  const f = mapping.fields;
  const turns = mapping.config.memory.conversation.turns;
  const joined = mapping.joined;
  const isTurnList = (v: unknown, text: string) =>
    Array.isArray(v) &&
    v.every((t) => t && typeof t === 'object' && typeof (t as Record<string, unknown>)[text] === 'string');
  if (joined)
    return [
      {
        path: `${joined.collection}.${turns?.text ?? 'text'}`,
        key: 'memory.conversation.collection',
        expected: `turn documents with ${joined.memoryId} = the memory id and a ${turns?.text ?? 'text'}`,
        // The joined turns as canonical() turned them into { role, text } turns.
        read: (doc) => {
          const raw = (doc.content as { raw?: unknown } | undefined)?.raw;
          return Array.isArray(raw) && raw.length ? raw : undefined;
        },
        valid: (v) => isTurnList(v, 'text'),
      },
    ];
  const stage: FieldRule[] = mapping.side ? [] : [stageRule(mapping)];
  return [
    ...stage,
    turns
      ? {
          path: f.conversation,
          key: 'memory.conversation.path',
          expected: `a list of { ${turns.role}, ${turns.text} } turns`,
          valid: (v) => isTurnList(v, turns.text),
        }
      : {
          path: f.conversation,
          key: 'memory.conversation.path',
          expected: 'a string or a list of { role, text } turns',
          valid: (v) => typeof v === 'string' || Array.isArray(v),
        },
  ];
}

function stageRule(mapping: Mapping): FieldRule {
  const f = mapping.fields;
  return mapping.missingStageIsRaw
    ? {
        path: f.stage,
        key: 'memory.stage',
        expected: 'raw, v1 or v2 (none: raw)',
        valid: (v) => v === undefined || v === null || v === 'raw' || v === 'v1' || v === 'v2',
      }
    : {
        path: f.stage,
        key: 'memory.stage',
        expected: 'raw, v1 or v2',
        valid: (v) => v === 'raw' || v === 'v1' || v === 'v2',
      };
}

/** Checks the sampled documents as stored (`source`) at the mapped paths. */
export function checkFields(sample: CanonicalMemory[], mapping: Mapping): FieldCheck[] {
  return fieldRules(mapping).map(({ path, key, expected, valid, read }) => {
    const check: FieldCheck = {
      field: path,
      key: `mapping.${key}`,
      expected,
      ok: 0,
      missing: 0,
      wrongType: 0,
    };
    for (const doc of sample) {
      const value = read ? read(doc) : valueAt(doc.source, path);
      if (valid(value)) check.ok++;
      else {
        if (value === undefined || value === null) check.missing++;
        else check.wrongType++;
        check.example ??= String(doc.memoryId ?? doc.source._id);
      }
    }
    return check;
  });
}

/** A role card field the mapping names, and how many of the found cards hold it. */
export interface CardFieldCheck {
  field: string;
  key: string;
  found: number;
}

/** The mapped role card fields, counted over the cards found (none with a default card). */
export function checkCardFields(cards: Record<string, unknown>[], mapping: Mapping): CardFieldCheck[] {
  if ('default' in mapping.roleCard) return [];
  const paths = mapping.roleCard.paths;
  const fields = ['name', 'personality', 'values', 'hobbies', 'speakingStyle', 'language'] as const;
  return fields.map((field) => ({
    field: paths[field],
    key: `mapping.roleCard.${field}`,
    found: cards.filter((card) => card[field] !== undefined).length,
  }));
}

/** Memories that fail as bad input, grouped by field: what the worker would record on them. */
export interface InputProblem {
  field: string;
  count: number;
  example: string;
  message: string;
}

/** A sampled memory whose role card core refuses: the card, the field and why. */
export interface CardRefusal {
  cardId: string;
  memoryId: string;
  /** The card field as core names it (`language`), and core's reason (`expected zh or en`). */
  field: string;
  reason: string;
  value: unknown;
}

export interface SampleSurvey {
  /** The sampled memories the worker could compress, with their role cards. */
  usable: { memory: Memory; card?: RoleCard }[];
  problems: InputProblem[];
  memoriesByCard: CardCounts;
  /** The distinct cards the sampled memories use (by `_id`), and the refusals of the invalid ones. */
  cardsUsed: number;
  refusals: CardRefusal[];
  languages: { zh: number; en: number };
  /** Length of the conversation in code points. */
  sizes: { p10: number; p50: number; p90: number; max: number };
}

/** `cardOf` finds a memory's card as the worker would (by its user and partner, role-cards.ts). */
export function surveySample(
  sample: CanonicalMemory[],
  cardOf: (memory: Memory) => FoundCard | undefined,
  policy: StagePolicy,
  now: Date,
  fieldName?: (field: string) => string,
): SampleSurvey {
  const problems = new Map<string, InputProblem>();
  const usable: SampleSurvey['usable'] = [];
  const memoriesByCard = noCards();
  const cardless: Memory[] = [];
  const cardsUsed = new Set<string>();
  const refusals: CardRefusal[] = [];
  const languages = { zh: 0, en: 0 };
  const lengths: number[] = [];
  for (const doc of sample) {
    let memory: Memory;
    try {
      memory = parseMemory(doc, policy, now);
      refuseUnsupportedLanguage(memory);
    } catch (thrown) {
      const error = fieldName ? productNamed(thrown, fieldName) : thrown;
      const field = error instanceof BadInputError ? error.field : '(document)';
      const problem = problems.get(field) ?? { field, count: 0, example: '', message: errorMessage(error) };
      problem.count++;
      problem.example ||= String(doc.memoryId ?? doc.source._id);
      problems.set(field, problem);
      continue;
    }
    const text = rawText(memory.content.raw);
    lengths.push(measureLength(text));
    languages[memoryLanguage(memory, undefined)]++;
    const found = cardOf(memory);
    let card: RoleCard | undefined;
    if (!found) {
      memoriesByCard.missing++;
      memoriesByCard.example ??= memory.memoryId;
      cardless.push(memory);
    } else {
      cardsUsed.add(String(found.id));
      try {
        card = parseRoleCard(found.card, memory.memoryId, memory.userId, memory.partnerId);
        memoriesByCard.withCard++;
      } catch (error) {
        memoriesByCard.invalid++;
        memoriesByCard.example ??= memory.memoryId;
        // core names the field `roleCard.<field>`: the canonical card's field, mapped back by the caller.
        const field = error instanceof BadInputError ? (error.field.split('.')[1] ?? '') : '';
        refusals.push({
          cardId: String(found.id),
          memoryId: memory.memoryId,
          field,
          reason: error instanceof BadInputError ? error.reason : errorMessage(error),
          value: found.card[field],
        });
      }
    }
    usable.push({ memory, ...(card && { card }) });
  }
  memoriesByCard.missingPairs = cardPairs(cardless);
  lengths.sort((a, b) => a - b);
  const at = (q: number) => lengths[Math.min(lengths.length - 1, Math.floor(q * lengths.length))] ?? 0;
  return {
    usable,
    problems: [...problems.values()],
    memoriesByCard,
    cardsUsed: cardsUsed.size,
    refusals,
    languages,
    sizes: { p10: at(0.1), p50: at(0.5), p90: at(0.9), max: lengths.at(-1) ?? 0 },
  };
}

/** Tonight's model calls, tokens and cost, from the sample's average memory. */
export interface NightEstimate {
  /** Stage transitions due tonight. */
  due: NightCalls;
  /** Model calls they take: inputs under MIN_INPUT_CHARS are carried without one (the sample's share). */
  calls: NightCalls;
  inputTokens: number;
  outputTokens: number;
  /** US dollars; undefined when the price table has no price for the model. */
  sync?: number;
  batch?: number;
  model: string;
  note: string;
}

/**
 * Tokens per call are measured on the sample's real prompts (instructions, role card, memory, and
 * the output's schema, which the providers bill as input, with Anthropic's tool-use prompt) with a
 * rough tokenizer; outputs are taken at the middle of each stage's target plus the rest of the JSON
 * (key points, traces). With the V2 draft (V2_DRAFT=with-v1) a V1 call also asks for the draft and
 * writes it; tonight's V2 calls are all counted, although a memory whose draft is still good makes
 * none. Prompt caching is left out too, so the estimate leans high.
 */
export function estimateNight(
  survey: SampleSurvey,
  calls: NightCalls,
  policy: StagePolicy,
  model: { name: string; offline: boolean; prices: PriceTable; provider?: string },
): NightEstimate {
  const compressible = survey.usable.filter(
    ({ memory, card }) =>
      measureLength(formatMemoryForPrompt(memory, memoryLanguage(memory, card))) >= policy.minInputChars,
  );
  const share = survey.usable.length ? compressible.length / survey.usable.length : 0;
  const modelCalls = model.offline
    ? { v1: 0, v2: 0 }
    : { v1: Math.round(calls.v1 * share), v2: Math.round(calls.v2 * share) };
  const base = { due: calls, calls: modelCalls, model: model.name };
  if (model.offline || compressible.length === 0) {
    const note = model.offline
      ? 'the offline compressor makes no model calls'
      : 'no sampled memory needs a model call';
    return { ...base, inputTokens: 0, outputTokens: 0, sync: 0, batch: 0, note };
  }
  const JSON_OVERHEAD = 1.5;
  const withDraft = policy.v2Draft === 'with-v1';
  let v1In = 0;
  let v1Out = 0;
  let v2In = 0;
  let v2Out = 0;
  for (const { memory, card } of compressible) {
    const language = memoryLanguage(memory, card);
    const text = formatMemoryForPrompt(memory, language);
    const personality = card ? formatPersonality(card, language) : '';
    const length = measureLength(text);
    const range = policy.v2Length[language];
    const request = (input: string, target: { min: number; max: number }, draft: boolean) => ({
      memoryId: memory.memoryId,
      language,
      personality,
      roleCard: card ?? { userId: memory.userId },
      text: input,
      targetLength: target,
      ...(draft && { draft: { targetLength: range, range } }),
    });
    const promptTokens = (stage: 'v1' | 'v2', input: string, target: { min: number; max: number }) => {
      const p = buildPrompt(stage, request(input, target, stage === 'v1' && withDraft));
      const schema = JSON.stringify(JSON_SCHEMAS[p.kind]);
      const toolPrompt = model.provider === 'anthropic' ? PROVIDER_PROMPT_TOKENS : 0;
      return estimateTokens(p.instructions + p.personality + p.user + schema) + toolPrompt;
    };
    const v1Range = v1Target(length, policy);
    const v1Text = text.slice(0, Math.round((v1Range.min + v1Range.max) / 2));
    const v2Output = Math.ceil(estimateTokens(text.slice(0, (range.min + range.max) / 2)) * JSON_OVERHEAD);
    v1In += promptTokens('v1', text, v1Range);
    v1Out += Math.ceil(estimateTokens(v1Text) * JSON_OVERHEAD) + (withDraft ? v2Output : 0);
    v2In += promptTokens('v2', v1Text, range);
    v2Out += v2Output;
  }
  const n = compressible.length;
  const inputTokens = Math.round((v1In / n) * modelCalls.v1 + (v2In / n) * modelCalls.v2);
  const outputTokens = Math.round((v1Out / n) * modelCalls.v1 + (v2Out / n) * modelCalls.v2);
  const price = model.prices[model.name];
  const usage = { ...ZERO_USAGE, inputTokens, outputTokens };
  if (!price) {
    return { ...base, inputTokens, outputTokens, note: `MEMFADE_PRICES has no price for ${model.name}` };
  }
  return {
    ...base,
    inputTokens,
    outputTokens,
    sync: costOf(usage, price),
    batch: costOf(usage, price, { batch: true }),
    note: 'estimated from the sample; prompt caching not counted',
  };
}
