import { InvalidModelOutputError } from './errors.js';
import { describeMissing, extractFacts, type Retention, retentionOf } from './facts.js';
import type { Language, TargetStage, Usage } from './memory.js';
import type { StagePolicy } from './stage-policy.js';

/**
 * Retention-gated promotion (docs/design.md §11): before a stage is written, the facts its input
 * states (facts.ts: names, places, dates, numbers, plans, the topic) are looked for in its output.
 * A model's output below the configured share has had its repair turn naming the missing facts
 * (retentionFeedback, in the model compressor); what is still below is written with a recorded
 * warning, or refused (RETENTION_GATE). Both compressors, sync and batch, pass through gate()
 * in stage.ts, which calls this.
 */

/** An input stating fewer facts is not judged: one fact missed of two says little. */
export const RETENTION_MIN_FACTS = 3;

/** How a retention warning starts, in the stage's warnings, and the reason a refused stage names. */
export const RETENTION_REASON = 'retention';

/** The share of its input's facts a stage must keep (0 = no gate for it). */
export function retentionMin(stage: TargetStage, policy: StagePolicy): number {
  return stage === 'v1' ? policy.retention.minV1 : policy.retention.minV2;
}

/** What the output keeps of its input's facts, when the gate judges it: below the share, or undefined. */
export function retentionShortfall(
  input: string,
  output: string,
  language: Language,
  min: number,
): Retention | undefined {
  if (min <= 0) return undefined;
  const facts = extractFacts(input, language);
  if (facts.length < RETENTION_MIN_FACTS) return undefined;
  const kept = retentionOf(facts, output);
  return kept.share !== null && kept.share < min ? kept : undefined;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * Why a stage fell short, for the operator: counts and kinds, never the facts themselves (memory
 * content stays out of run errors and logs, docs/design.md invariant 6).
 */
function describe(stage: TargetStage, kept: Retention, min: number): string {
  const setting = stage === 'v1' ? 'RETENTION_MIN_V1' : 'RETENTION_MIN_V2';
  return (
    `${RETENTION_REASON}: ${stage.toUpperCase()} keeps ${kept.kept} of the ${kept.facts} facts of its input ` +
    `(${percent(kept.share ?? 0)}, below ${setting} ${percent(min)}); missing ${describeMissing(kept.missing)}`
  );
}

/**
 * A stage refused by the retention gate (RETENTION_GATE=refuse): the memory keeps its previous
 * stage, and the message (starting `retention:`) goes where a failed memory's reason goes: its
 * lastError (`inspect`) and the run's errors (`status`). Unrecoverable like any invalid output.
 */
export class RetentionGateError extends InvalidModelOutputError {
  readonly gate = RETENTION_REASON;
}

/** The gate on one stage's output: a warning to record, nothing, or a RetentionGateError (refuse). */
export function retentionGate(
  stage: TargetStage,
  memoryId: string,
  input: string,
  output: string,
  language: Language,
  policy: StagePolicy,
  spent: { usage: Usage; model: string },
): string | undefined {
  const min = retentionMin(stage, policy);
  const kept = retentionShortfall(input, output, language, min);
  if (!kept) return undefined;
  const reason = describe(stage, kept, min);
  if (policy.retention.gate === 'refuse')
    throw new RetentionGateError(`memory ${memoryId}: ${reason}`, spent);
  return reason;
}

/**
 * The repair turn's words for an output that keeps too few facts: the missing facts themselves
 * (the model needs them; this goes to the model, not to a log), in the memory's language.
 * Undefined when the output passes. For the model compressor's one repair call.
 */
export function retentionFeedback(
  input: string,
  output: string,
  language: Language,
  min: number,
  field: string,
): string | undefined {
  const kept = retentionShortfall(input, output, language, min);
  if (!kept) return undefined;
  const missing = kept.missing
    .slice(0, 20)
    .map((f) => f.text)
    .join(language === 'zh' ? '、' : '; ');
  return language === 'zh'
    ? `${field} 只保留了输入中 ${kept.facts} 个事实里的 ${kept.kept} 个（需要至少${percent(min)}），请保留这些事实：${missing}`
    : `${field} keeps ${kept.kept} of the ${kept.facts} facts of the input (at least ${percent(min)} are needed); keep these: ${missing}`;
}
