import type { QaModel } from '@memfade/ai';
import { addUsage, costOf, type Language, type PriceTable, type Usage, ZERO_USAGE } from '@memfade/core';
import type { EvalQuestion } from './dataset.js';

/** Tokens, cost and calls of one kind of model use in an evaluation. */
export interface Accounting {
  usage: Usage;
  costUsd: number;
  calls: number;
  models: string[];
}

export function accounting(): Accounting {
  return { usage: ZERO_USAGE, costUsd: 0, calls: 0, models: [] };
}

export function charge(
  account: Accounting,
  usage: Usage,
  model: string,
  prices: PriceTable | undefined,
): void {
  account.usage = addUsage(account.usage, usage);
  account.costUsd += costOf(usage, prices?.[model]);
  account.calls++;
  if (!account.models.includes(model)) account.models.push(model);
}

export interface QuestionOutcome {
  category?: number;
  adversarial: boolean;
  correct: boolean;
  declined: boolean;
}

/** Who answers and who judges: never the same model by default (docs/design.md §11). */
export interface QaModels {
  answerer: QaModel;
  judge: QaModel;
  prices?: PriceTable;
  concurrency?: number;
}

/** Every question of one stage's text, a few at a time. */
export async function askAll(
  models: QaModels,
  context: string,
  questions: EvalQuestion[],
  language: Language,
  cost: Accounting,
): Promise<QuestionOutcome[]> {
  const out: QuestionOutcome[] = new Array(questions.length);
  const width = Math.max(1, models.concurrency ?? 4);
  for (let start = 0; start < questions.length; start += width) {
    const batch = questions.slice(start, start + width);
    await Promise.all(
      batch.map(async (q, offset) => {
        out[start + offset] = await ask(models, context, q, language, cost);
      }),
    );
  }
  return out;
}

/**
 * One question: the answering model answers from the stage's text alone; the judge model scores
 * the answer against the gold one. An adversarial question is right only when declined, and a
 * declined ordinary question is wrong: neither needs a judge call.
 */
async function ask(
  models: QaModels,
  context: string,
  q: EvalQuestion,
  language: Language,
  cost: Accounting,
): Promise<QuestionOutcome> {
  const reply = await models.answerer.answer(context, q.question, language);
  charge(cost, reply.usage, reply.model, models.prices);
  const base = { ...(q.category !== undefined && { category: q.category }), adversarial: q.adversarial };
  if (q.adversarial || reply.declined) {
    return { ...base, declined: reply.declined, correct: q.adversarial && reply.declined };
  }
  const judgement = await models.judge.judge(q.question, q.answer ?? '', reply.answer);
  charge(cost, judgement.usage, judgement.model, models.prices);
  return { ...base, declined: false, correct: judgement.correct };
}

export interface QaSummary {
  /** The headline: questions the conversation answers (adversarial ones are reported apart). */
  questions: number;
  correct: number;
  accuracy: number | null;
  byCategory: Record<string, { questions: number; correct: number; accuracy: number | null }>;
  /**
   * Questions nothing in the conversation answers: declining is right. Never in the headline:
   * a stage that keeps less declines more, and would score higher for forgetting.
   */
  adversarial: { questions: number; declined: number; declineRate: number | null };
}

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

export function summariseQa(outcomes: QuestionOutcome[]): QaSummary {
  const answerable = outcomes.filter((o) => !o.adversarial);
  const adversarial = outcomes.filter((o) => o.adversarial);
  const byCategory: QaSummary['byCategory'] = {};
  for (const o of answerable) {
    const key = o.category !== undefined ? String(o.category) : 'other';
    byCategory[key] ??= { questions: 0, correct: 0, accuracy: null };
    const entry = byCategory[key];
    entry.questions++;
    if (o.correct) entry.correct++;
  }
  for (const entry of Object.values(byCategory)) entry.accuracy = share(entry.correct, entry.questions);
  const correct = answerable.filter((o) => o.correct).length;
  const declined = adversarial.filter((o) => o.declined).length;
  return {
    questions: answerable.length,
    correct,
    accuracy: share(correct, answerable.length),
    byCategory,
    adversarial: {
      questions: adversarial.length,
      declined,
      declineRate: share(declined, adversarial.length),
    },
  };
}
