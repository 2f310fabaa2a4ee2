import type { QaModel } from '@memfade/ai';
import {
  addUsage,
  type Compressor,
  compressMemory,
  costOf,
  detectLanguage,
  errorMessage,
  type Language,
  measureLength,
  type PriceTable,
  rawText,
  type Stage,
  type StagePolicy,
  type TargetStage,
  type Usage,
  type V1Result,
  type V2Result,
  v1Target,
  v2LengthTarget,
  ZERO_USAGE,
} from '@memfade/core';
import { redactSecrets } from '@memfade/runtime';
import { type EvalConversation, type EvalQuestion, holdsFact, normalise } from './dataset.js';
import { InMemoryMemoryStore } from './memory-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface EvalOptions {
  compressor: Compressor;
  policy: StagePolicy;
  /** With a model provider: answers each question from each stage's text, then judges it. */
  qa?: QaModel;
  prices?: PriceTable;
  now?: () => Date;
  /** Questions answered at once (model calls in flight) per stage. */
  qaConcurrency?: number;
  onProgress?: (progress: { done: number; total: number; failed: number }) => void;
}

export type TargetStatus = 'below' | 'within' | 'above' | 'skipped';

/** What one conversation became at one stage. */
export interface StageOutcome {
  length: number;
  /** This stage's length over the raw conversation's. */
  ratio: number;
  /** Against the stage's length target (V1: share of the input; V2: the language's range). */
  target?: TargetStatus;
  languageMatches: boolean;
  /** Gold facts present in raw that this stage's text still holds. */
  factsKept: number;
  qa?: QuestionOutcome[];
}

export interface QuestionOutcome {
  category?: number;
  adversarial: boolean;
  correct: boolean;
  declined: boolean;
}

export interface ConversationResult {
  id: string;
  language: Language;
  facts: { total: number; inRaw: number };
  stages: Partial<Record<Stage, StageOutcome>>;
  failure?: { stage: TargetStage; reason: string };
}

interface Accounting {
  usage: Usage;
  costUsd: number;
  calls: number;
  models: string[];
}

export interface StageSummary {
  conversations: number;
  length: Distribution;
  ratio: Distribution;
  /** Conversations per target status (V1 and V2). */
  target?: Record<TargetStatus, number>;
  /** Share of the conversations whose stage text is in the conversation's language. */
  languageFidelity: number;
  /** Gold facts present in raw (of these conversations), and how many this stage kept. */
  facts: { counted: number; kept: number; retention: number | null };
  qa?: QaSummary;
}

export interface QaSummary {
  questions: number;
  correct: number;
  accuracy: number | null;
  byCategory: Record<string, { questions: number; correct: number; accuracy: number | null }>;
}

export interface Distribution {
  mean: number;
  p10: number;
  p50: number;
  p90: number;
}

export interface LanguageSummary {
  conversations: number;
  /** Gold facts of these conversations, and the share of them the raw text holds (the upper bound). */
  facts: { total: number; inRaw: number; rawCoverage: number | null };
  failures: number;
  stages: Partial<Record<Stage, StageSummary>>;
  targets: { v1Ratio: { min: number; max: number }; v2Length: { min: number; max: number } };
}

export interface EvalReport {
  compressor: string;
  qaModel?: string;
  conversations: number;
  byLanguage: Partial<Record<Language, LanguageSummary>>;
  failures: { id: string; stage: TargetStage; reason: string }[];
  /** Tokens and cost: of compressing the set, and of the evaluation's own QA calls. */
  cost: { compression: Accounting; qa?: Accounting };
  elapsedMs: number;
  results: ConversationResult[];
}

const STAGE_ORDER: Stage[] = ['raw', 'v1', 'v2'];

/**
 * Compresses each conversation to V1 and V2 through the worker's own pipeline (compressMemory:
 * prompts, gates, repair), on an in-memory store, and measures what each stage keeps.
 */
export async function evaluate(conversations: EvalConversation[], options: EvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const compression = accounting();
  const qaCost = options.qa ? accounting() : undefined;
  const results: ConversationResult[] = [];
  let failed = 0;
  for (const [index, conversation] of conversations.entries()) {
    const result = await evaluateOne(conversation, index, options, now, compression, qaCost);
    if (result.failure) failed++;
    results.push(result);
    options.onProgress?.({ done: index + 1, total: conversations.length, failed });
  }
  return {
    compressor: options.compressor.name,
    ...(options.qa && { qaModel: options.qa.model }),
    conversations: results.length,
    byLanguage: summarise(results, options.policy),
    failures: results.flatMap((r) => (r.failure ? [{ id: r.id, ...r.failure }] : [])),
    cost: { compression, ...(qaCost && { qa: qaCost }) },
    elapsedMs: Math.round(performance.now() - started),
    results,
  };
}

function accounting(): Accounting {
  return { usage: ZERO_USAGE, costUsd: 0, calls: 0, models: [] };
}

function charge(account: Accounting, usage: Usage, model: string, prices: PriceTable | undefined): void {
  account.usage = addUsage(account.usage, usage);
  account.costUsd += costOf(usage, prices?.[model]);
  account.calls++;
  if (!account.models.includes(model)) account.models.push(model);
}

async function evaluateOne(
  conversation: EvalConversation,
  index: number,
  options: EvalOptions,
  now: () => Date,
  compression: Accounting,
  qaCost: Accounting | undefined,
): Promise<ConversationResult> {
  const raw = rawText(conversation.turns);
  const language = conversation.language ?? detectLanguage(raw);
  const store = new InMemoryMemoryStore();
  const memoryId = `eval-${index + 1}`;
  const userId = `eval-user-${index + 1}`;
  store.putRoleCard({ userId, ...conversation.roleCard });
  store.putMemory({
    memoryId,
    userId,
    partnerId: 'eval',
    content: { raw: conversation.turns },
    // Old enough for V2: one call takes the memory through V1, then V2, as a late worker would.
    meta: {
      createdAt: new Date(now().getTime() - (options.policy.v2AfterDays + 1) * DAY_MS),
      compressionStage: 'raw',
      ...(conversation.language && { language: conversation.language }),
    },
    rev: 0,
  });

  let failure: ConversationResult['failure'];
  try {
    const outcome = await compressMemory(memoryId, 'v2', `eval-${index + 1}`, {
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
  const doc = (await store.loadMemory(memoryId)) as {
    compression?: { v1?: V1Result; v2?: V2Result };
  } | null;
  const v1 = doc?.compression?.v1;
  const v2 = doc?.compression?.v2;
  if (failure) {
    failure.stage = v1 ? 'v2' : 'v1';
    // As the worker does: the memory records why it failed (here, in the scratch store).
    await store.recordError(memoryId, {
      stage: failure.stage,
      message: failure.reason,
      at: now(),
      attempts: 1,
    });
  }
  for (const result of [v1, v2]) {
    if (result && result.skipped !== 'too_short')
      charge(compression, result.usage, result.model, options.prices);
  }

  const inRaw = conversation.facts.filter((f) => holdsFact(normalise(raw), f.text));
  const rawLength = measureLength(raw);
  const texts: Partial<Record<Stage, string>> = { raw };
  if (v1) texts.v1 = v1.compressedContent;
  if (v2) texts.v2 = v2.coreMemory;
  const stages: ConversationResult['stages'] = {};
  for (const stage of STAGE_ORDER) {
    const text = texts[stage];
    if (text === undefined) continue;
    const length = measureLength(text);
    const normalised = normalise(text);
    const outcome: StageOutcome = {
      length,
      ratio: rawLength === 0 ? 0 : length / rawLength,
      languageMatches: detectLanguage(text) === language,
      factsKept: inRaw.filter((f) => holdsFact(normalised, f.text)).length,
    };
    if (stage === 'v1' && v1) outcome.target = targetStatus(v1, v1Target(v1.originalLength, options.policy));
    if (stage === 'v2' && v2) {
      // The pipeline's V2 range: the language's range, capped by what V1 kept.
      const range = v2LengthTarget(options.policy, language);
      const ceiling = measureLength(v1?.compressedContent ?? raw);
      outcome.target = targetStatus(v2, {
        min: Math.min(range.min, ceiling),
        max: Math.min(range.max, ceiling),
      });
    }
    if (options.qa && qaCost && conversation.questions.length) {
      outcome.qa = await askAll(options.qa, text, conversation.questions, language, options, qaCost);
    }
    stages[stage] = outcome;
  }
  return {
    id: conversation.id,
    language,
    facts: { total: conversation.facts.length, inRaw: inRaw.length },
    stages,
    ...(failure && { failure }),
  };
}

function targetStatus(result: V1Result | V2Result, target: { min: number; max: number }): TargetStatus {
  if (result.skipped === 'too_short') return 'skipped';
  if (result.compressedLength < target.min) return 'below';
  if (result.compressedLength > target.max) return 'above';
  return 'within';
}

async function askAll(
  qa: QaModel,
  context: string,
  questions: EvalQuestion[],
  language: Language,
  options: EvalOptions,
  cost: Accounting,
): Promise<QuestionOutcome[]> {
  const out: QuestionOutcome[] = new Array(questions.length);
  const width = Math.max(1, options.qaConcurrency ?? 4);
  for (let start = 0; start < questions.length; start += width) {
    const batch = questions.slice(start, start + width);
    await Promise.all(
      batch.map(async (q, offset) => {
        out[start + offset] = await ask(qa, context, q, language, options, cost);
      }),
    );
  }
  return out;
}

/**
 * One question: the model answers from the stage's text alone. An adversarial question is right
 * only when declined, and a declined ordinary question is wrong: neither needs a judge call.
 */
async function ask(
  qa: QaModel,
  context: string,
  q: EvalQuestion,
  language: Language,
  options: EvalOptions,
  cost: Accounting,
): Promise<QuestionOutcome> {
  const reply = await qa.answer(context, q.question, language);
  charge(cost, reply.usage, reply.model, options.prices);
  const base = { ...(q.category !== undefined && { category: q.category }), adversarial: q.adversarial };
  if (q.adversarial || reply.declined) {
    return { ...base, declined: reply.declined, correct: q.adversarial && reply.declined };
  }
  const judgement = await qa.judge(q.question, q.answer ?? '', reply.answer);
  charge(cost, judgement.usage, judgement.model, options.prices);
  return { ...base, declined: false, correct: judgement.correct };
}

// ---- aggregation ----

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
  return { mean, p10: percentile(sorted, 0.1), p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

function summariseQa(outcomes: QuestionOutcome[]): QaSummary {
  const byCategory: QaSummary['byCategory'] = {};
  for (const o of outcomes) {
    const key = o.category !== undefined ? String(o.category) : o.adversarial ? 'adversarial' : 'other';
    byCategory[key] ??= { questions: 0, correct: 0, accuracy: null };
    const entry = byCategory[key];
    entry.questions++;
    if (o.correct) entry.correct++;
  }
  for (const entry of Object.values(byCategory)) entry.accuracy = share(entry.correct, entry.questions);
  const correct = outcomes.filter((o) => o.correct).length;
  return { questions: outcomes.length, correct, accuracy: share(correct, outcomes.length), byCategory };
}

function summarise(results: ConversationResult[], policy: StagePolicy): EvalReport['byLanguage'] {
  const out: EvalReport['byLanguage'] = {};
  for (const language of ['zh', 'en'] as const) {
    const mine = results.filter((r) => r.language === language);
    if (mine.length === 0) continue;
    const total = mine.reduce((n, r) => n + r.facts.total, 0);
    const inRaw = mine.reduce((n, r) => n + r.facts.inRaw, 0);
    const stages: LanguageSummary['stages'] = {};
    for (const stage of STAGE_ORDER) {
      const reached = mine.filter((r) => r.stages[stage]);
      if (reached.length === 0) continue;
      const outcomes = reached.map((r) => r.stages[stage]!);
      const counted = reached.reduce((n, r) => n + r.facts.inRaw, 0);
      const kept = outcomes.reduce((n, o) => n + o.factsKept, 0);
      const summary: StageSummary = {
        conversations: reached.length,
        length: distribution(outcomes.map((o) => o.length)),
        ratio: distribution(outcomes.map((o) => o.ratio)),
        languageFidelity: outcomes.filter((o) => o.languageMatches).length / outcomes.length,
        facts: { counted, kept, retention: share(kept, counted) },
      };
      if (stage !== 'raw') {
        const target = { below: 0, within: 0, above: 0, skipped: 0 };
        for (const o of outcomes) if (o.target) target[o.target]++;
        summary.target = target;
      }
      const questions = outcomes.flatMap((o) => o.qa ?? []);
      if (outcomes.some((o) => o.qa)) summary.qa = summariseQa(questions);
      stages[stage] = summary;
    }
    out[language] = {
      conversations: mine.length,
      facts: { total, inRaw, rawCoverage: share(inRaw, total) },
      failures: mine.filter((r) => r.failure).length,
      stages,
      targets: { v1Ratio: policy.v1Ratio, v2Length: v2LengthTarget(policy, language) },
    };
  }
  return out;
}
