import type { QaModel } from '@memfade/ai';
import {
  type Compressor,
  compressMemory,
  detectLanguage,
  errorMessage,
  extractFacts,
  type Language,
  measureLength,
  normalise,
  type PriceTable,
  rawText,
  retentionOf,
  type StagePolicy,
  type TargetStage,
  type V1Result,
  type V2Result,
  v2LengthTarget,
} from '@memfade/core';
import { redactSecrets } from '@memfade/runtime';
import { type EvalConversation, userRoleOf } from './dataset.js';
import { measureMemory } from './measures/index.js';
import type { MemoryView } from './measures/types.js';
import { InMemoryMemoryStore } from './memory-store.js';
import { type Accounting, accounting, askAll, charge } from './qa.js';
import type { ConversationResult, StageOutcome, TargetStatus } from './result.js';
import { type LanguageSummary, STAGE_ORDER, summarise, type Texts } from './summary.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface EvalOptions {
  compressor: Compressor;
  policy: StagePolicy;
  /** The set's name, for the report's title (e.g. the file name). */
  set?: string;
  /** With a model provider: answers each question from each stage's text. */
  qa?: QaModel;
  /** Scores the answers against the gold ones; by default the answering model (the report warns). */
  judge?: QaModel;
  prices?: PriceTable;
  now?: () => Date;
  /** Questions answered at once (model calls in flight) per stage. */
  qaConcurrency?: number;
  /** How many of the best and of the worst memories the report quotes (summary.ts SAMPLES). */
  samples?: number;
  onProgress?: (progress: { done: number; total: number; failed: number }) => void;
}

export interface EvalReport {
  set: string;
  compressor: string;
  qaModel?: string;
  judgeModel?: string;
  conversations: number;
  byLanguage: Partial<Record<Language, LanguageSummary>>;
  failures: { id: string; stage: TargetStage; reason: string }[];
  /** Tokens and cost: of compressing the set, and of the evaluation's own QA calls. */
  cost: { compression: Accounting; qa?: Accounting };
  elapsedMs: number;
  results: ConversationResult[];
}

/**
 * Compresses each conversation of one set to V1 and V2 through the worker's own pipeline
 * (compressMemory: prompts, gates, repair, the retention gate), on an in-memory store, and
 * measures what each stage keeps and how it reads. One report per set: sets are never merged.
 */
export async function evaluate(conversations: EvalConversation[], options: EvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const compression = accounting();
  const qaCost = options.qa ? accounting() : undefined;
  const results: ConversationResult[] = [];
  const texts = new Map<string, Texts>();
  let failed = 0;
  for (const [index, conversation] of conversations.entries()) {
    const { result, text } = await evaluateOne(conversation, index, options, compression, qaCost);
    if (result.failure) failed++;
    results.push(result);
    texts.set(result.id, text);
    options.onProgress?.({ done: index + 1, total: conversations.length, failed });
  }
  const judge = options.judge ?? options.qa;
  return {
    set: options.set ?? 'eval',
    compressor: options.compressor.name,
    ...(options.qa && { qaModel: options.qa.model }),
    ...(judge && { judgeModel: judge.model }),
    conversations: results.length,
    byLanguage: summarise(results, texts, options.policy, options.samples),
    failures: results.flatMap((r) => (r.failure ? [{ id: r.id, ...r.failure }] : [])),
    cost: { compression, ...(qaCost && { qa: qaCost }) },
    elapsedMs: Math.round(performance.now() - started),
    results,
  };
}

async function compress(
  conversation: EvalConversation,
  index: number,
  options: EvalOptions,
  compression: Accounting,
): Promise<{ v1?: V1Result; v2?: V2Result; failure?: ConversationResult['failure'] }> {
  const store = new InMemoryMemoryStore();
  const memoryId = `eval-${index + 1}`;
  const userId = `eval-user-${index + 1}`;
  const age = (options.policy.v2AfterDays + 1) * DAY_MS;
  // The memory's date is the conversation's when the set gives it; the worker comes just late
  // enough to take it through V1, then V2, in one call.
  const createdAt = conversation.date ?? new Date((options.now?.() ?? new Date()).getTime() - age);
  const now = () =>
    conversation.date ? new Date(createdAt.getTime() + age) : (options.now?.() ?? new Date());
  store.putRoleCard({ userId, ...conversation.roleCard });
  store.putMemory({
    memoryId,
    userId,
    partnerId: 'eval',
    content: { raw: conversation.turns },
    meta: {
      createdAt,
      compressionStage: 'raw',
      ...(conversation.language && { language: conversation.language }),
    },
    rev: 0,
  });
  let failure: ConversationResult['failure'];
  try {
    const outcome = await compressMemory(memoryId, 'v2', memoryId, {
      store,
      compressor: options.compressor,
      policy: options.policy,
      now,
    });
    for (const call of outcome.discarded ?? []) charge(compression, call.usage, call.model, options.prices);
    if (outcome.kind === 'noop') failure = { stage: 'v1', reason: `not compressed (${outcome.reason})` };
  } catch (error) {
    failure = { stage: 'v1', reason: redactSecrets(errorMessage(error)) };
  }
  const doc = (await store.loadMemory(memoryId)) as { compression?: { v1?: V1Result; v2?: V2Result } } | null;
  const { v1, v2 } = doc?.compression ?? {};
  if (failure) failure.stage = v1 ? 'v2' : 'v1';
  for (const result of [v1, v2]) {
    if (result && result.skipped !== 'too_short')
      charge(compression, result.usage, result.model, options.prices);
  }
  return { ...(v1 && { v1 }), ...(v2 && { v2 }), ...(failure && { failure }) };
}

async function evaluateOne(
  conversation: EvalConversation,
  index: number,
  options: EvalOptions,
  compression: Accounting,
  qaCost: Accounting | undefined,
): Promise<{ result: ConversationResult; text: Texts }> {
  const raw = rawText(conversation.turns);
  const language = conversation.language ?? detectLanguage(raw);
  const { v1, v2, failure } = await compress(conversation, index, options, compression);

  const normalisedRaw = normalise(raw);
  // Gold facts normalised once, then looked for in each stage's text.
  const inRaw = conversation.facts
    .map((f) => normalise(f.text))
    .filter((f) => f !== '' && normalisedRaw.includes(f));
  const extracted = extractFacts(raw, language);
  const rawLength = measureLength(raw);
  const text: Texts = { raw, ...(v1 && { v1: v1.compressedContent }), ...(v2 && { v2: v2.coreMemory }) };
  const view: MemoryView = {
    language,
    turns: conversation.turns,
    userRole: userRoleOf(conversation),
    // As the pipeline reads the card (core parse.ts): " Juno " is Juno.
    knownNames: [conversation.roleCard?.name, conversation.roleCard?.userName].flatMap((n) =>
      n?.trim() ? [n.trim()] : [],
    ),
    ...(conversation.topic && { topic: conversation.topic }),
    ...(conversation.date && { date: conversation.date }),
    minInputChars: options.policy.minInputChars,
    targets: { v1Ratio: options.policy.v1Ratio, v2Length: v2LengthTarget(options.policy, language) },
    ...(v1 && {
      v1: {
        text: v1.compressedContent,
        inputLength: v1.originalLength,
        skipped: v1.skipped === 'too_short',
        keyPoints: v1.keyPoints,
        highlights: v1.emotionalHighlights,
      },
    }),
    ...(v2 && {
      v2: {
        text: v2.coreMemory,
        inputLength: v2.originalLength,
        skipped: v2.skipped === 'too_short',
        points: v2.coreMemoryPoints,
        residue: v2.emotionalResidue,
      },
    }),
  };
  const findings = measureMemory(view);
  const lengthStatus = (stage: TargetStage) => {
    const f = findings.find((x) => x.measure === 'length' && x.stage === stage);
    if (!f) return 'skipped' as const;
    return f.ok ? ('within' as const) : (f.note!.split(':')[0] as TargetStatus);
  };

  const stages: ConversationResult['stages'] = {};
  for (const stage of STAGE_ORDER) {
    const stageText = text[stage];
    if (stageText === undefined) continue;
    const length = measureLength(stageText);
    const normalised = normalise(stageText);
    const outcome: StageOutcome = {
      length,
      ratio: rawLength === 0 ? 0 : length / rawLength,
      languageMatches: detectLanguage(stageText) === language,
      factsKept: inRaw.filter((f) => normalised.includes(f)).length,
      extractedKept: retentionOf(extracted, stageText).kept,
    };
    if (stage !== 'raw') outcome.target = lengthStatus(stage);
    if (options.qa && qaCost && conversation.questions.length) {
      const models = {
        answerer: options.qa,
        judge: options.judge ?? options.qa,
        ...(options.prices && { prices: options.prices }),
        ...(options.qaConcurrency && { concurrency: options.qaConcurrency }),
      };
      outcome.qa = await askAll(models, stageText, conversation.questions, language, qaCost);
    }
    stages[stage] = outcome;
  }
  const warnings = {
    ...(v1?.warnings.length && { v1: v1.warnings }),
    ...(v2?.warnings.length && { v2: v2.warnings }),
  };
  const passed = findings.length ? findings.filter((f) => f.ok).length / findings.length : 1;
  const kept = extracted.length && stages.v2 ? stages.v2.extractedKept / extracted.length : undefined;
  const result: ConversationResult = {
    id: conversation.id,
    language,
    ...(conversation.date && { date: conversation.date.toISOString() }),
    facts: { total: conversation.facts.length, inRaw: inRaw.length },
    extracted: extracted.length,
    stages,
    findings,
    ...(Object.keys(warnings).length && { warnings }),
    score: kept === undefined ? passed : (passed + kept) / 2,
    ...(failure && { failure }),
  };
  return { result, text };
}
