import { InvalidModelOutputError } from './errors.js';
import { type Memory, type V2Draft, type V2Fields, type V2Result, ZERO_USAGE } from './memory.js';
import { gate, type StagePlan } from './stage.js';
import type { StagePolicy } from './stage-policy.js';
import { measureLength } from './text.js';

/**
 * The V2 draft (V2_DRAFT=with-v1, docs/design.md §4): V1's one call also writes V2 from the whole
 * conversation, which is kept beside the stages and becomes V2 on its day without a model call,
 * while the memory is still as V1 left it. One call per memory's life instead of two, and V2 is
 * written from the raw text rather than by compressing V1 again.
 */

/** The draft a V1 reply brought, as stored with V1 (the memory's rev once V1 is written). */
export function draftRecord(
  fields: V2Fields | undefined,
  v1: { model: string; promptVersion: string; compressedAt: Date },
  memory: Memory,
  sourceHash: string,
): V2Draft | undefined {
  if (!fields) return undefined;
  const { model, promptVersion, compressedAt } = v1;
  return { ...fields, model, promptVersion, compressedAt, rev: memory.rev + 1, sourceHash };
}

/**
 * The memory's draft as its V2, or undefined when V2 needs its own call: no draft; memfade wrote
 * the memory since V1 (`rev`) or the product edited it (`sourceHash`, docs/design.md invariant 7);
 * the draft is not shorter than V1 (§4: V2 is always shorter than V1, never identical); or the
 * draft fails V2's checks, the retention gate included, against V2's plan (its input is V1). It
 * costs nothing: its tokens were paid with V1's call.
 */
export function promotedDraft(
  memory: Memory,
  plan: StagePlan,
  sourceHash: string,
  policy: StagePolicy,
): V2Result | undefined {
  const draft = memory.compression?.v2Draft;
  const v1 = memory.compression?.v1;
  if (!draft || !v1 || draft.rev !== memory.rev || draft.sourceHash !== sourceHash) return undefined;
  const { model, promptVersion, compressedAt: _a, rev: _r, sourceHash: _s, ...fields } = draft;
  if (measureLength(fields.coreMemory) >= measureLength(v1.compressedContent)) return undefined;
  const reply = { fields, usage: ZERO_USAGE, model, promptVersion };
  try {
    const result = gate(
      plan.input,
      fields.coreMemory,
      plan.originalLength,
      plan.target,
      [reply],
      0,
      policy,
      fields,
    );
    return { ...(result as V2Result), fromDraft: true };
  } catch (error) {
    // Refused by V2's checks (RETENTION_GATE=refuse, OUT_OF_RANGE=fail): V2 is asked for as before.
    if (error instanceof InvalidModelOutputError) return undefined;
    throw error;
  }
}
