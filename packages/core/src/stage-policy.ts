import { z } from 'zod';
import type { Language, Stage, TargetStage } from './memory.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const stagePolicySchema = z
  .object({
    v1AfterDays: z.number().int().min(0).default(3),
    v2AfterDays: z.number().int().min(1).default(7),
    /** Inputs shorter than this (code points) are not sent to a model; the stage advances as skipped. */
    minInputChars: z.number().int().min(0).default(100),
    /** Inputs longer than this are split into chunks compressed one by one and merged. */
    maxChunkChars: z.number().int().min(200).default(12_000),
    /** At most this many chunks per memory; a longer memory fails as bad input instead of costing a fortune. */
    maxChunks: z.number().int().min(1).default(16),
    /** Raw content larger than this (UTF-8 bytes) is bad input. */
    maxInputBytes: z.number().int().min(1).default(1_000_000),
    /** V1 target: this share of the input length. */
    v1Ratio: z.object({ min: z.number(), max: z.number() }).default({ min: 0.3, max: 0.5 }),
    /** V1's absolute ceiling in code points, whatever the input's length (gates.ts v1Target). */
    v1MaxChars: z.number().int().min(200).default(6000),
    /** V2 target lengths in code points, per language (seed 003: 100-200 Chinese characters). */
    v2Length: z
      .object({
        zh: z.object({ min: z.number(), max: z.number() }),
        en: z.object({ min: z.number(), max: z.number() }),
      })
      .default({ zh: { min: 100, max: 200 }, en: { min: 250, max: 500 } }),
    /**
     * `with-v1`: V1's call also writes a V2 draft from the raw conversation, which becomes V2 on its
     * day without a model call while the memory is unchanged (docs/design.md §4); `separate`: V2 is
     * its own call from V1, as before.
     */
    v2Draft: z.enum(['with-v1', 'separate']).default('with-v1'),
    /** What to do with output outside the targets after the repair attempt. */
    outOfRange: z.enum(['warn', 'fail']).default('warn'),
    /**
     * The retention gate (docs/design.md §11): the share of the facts of its input (facts.ts) a
     * stage must still hold to be written as it is; below it (after the model's repair turn), the
     * stage is written with a warning or refused. 0 turns the gate off for that stage.
     */
    retention: z
      .object({
        gate: z.enum(['warn', 'refuse']),
        minV1: z.number().min(0).max(1),
        minV2: z.number().min(0).max(1),
      })
      .default({ gate: 'warn', minV1: 0.6, minV2: 0.5 }),
  })
  .refine((p) => p.v2AfterDays > p.v1AfterDays, {
    message: 'v2AfterDays must be greater than v1AfterDays',
    path: ['v2AfterDays'],
  });

export type StagePolicy = z.infer<typeof stagePolicySchema>;

export function stagePolicy(overrides: z.input<typeof stagePolicySchema> = {}): StagePolicy {
  return stagePolicySchema.parse(overrides);
}

export function ageDays(createdAt: Date, now: Date): number {
  return Math.floor((now.getTime() - createdAt.getTime()) / DAY_MS);
}

/** The stage a memory should be at, given its age. */
export function stageDueAt(createdAt: Date, now: Date, policy: StagePolicy): Stage {
  const age = ageDays(createdAt, now);
  if (age >= policy.v2AfterDays) return 'v2';
  if (age >= policy.v1AfterDays) return 'v1';
  return 'raw';
}

const ORDER: Record<Stage, number> = { raw: 0, v1: 1, v2: 2 };

export function stageIndex(stage: Stage): number {
  return ORDER[stage];
}

/** The next stage after `stage`, or undefined at the last one. */
export function nextStage(stage: Stage): TargetStage | undefined {
  return stage === 'raw' ? 'v1' : stage === 'v1' ? 'v2' : undefined;
}

/**
 * The transitions a memory needs right now, in order; never skips a stage, so a raw memory
 * that is already v2-old needs ['v1', 'v2'].
 */
export function transitionsDue(
  current: Stage,
  createdAt: Date,
  now: Date,
  policy: StagePolicy,
): TargetStage[] {
  const due = stageDueAt(createdAt, now, policy);
  const steps: TargetStage[] = [];
  for (let s = nextStage(current); s && ORDER[s] <= ORDER[due]; s = nextStage(s)) steps.push(s);
  return steps;
}

/** The latest createdAt at which a memory is due for `target` at `now` (the due scan's upper bound). */
export function dueCutoff(target: TargetStage, now: Date, policy: StagePolicy): Date {
  const days = target === 'v1' ? policy.v1AfterDays : policy.v2AfterDays;
  return new Date(now.getTime() - days * DAY_MS);
}

export function v2LengthTarget(policy: StagePolicy, language: Language): { min: number; max: number } {
  return policy.v2Length[language];
}
