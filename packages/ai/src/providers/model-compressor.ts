import {
  addUsage,
  type CallCeiling,
  type CompressionRequest,
  type Compressor,
  checkOutput,
  InvalidModelOutputError,
  isFatal,
  type ModelFailureReason,
  type ModelReply,
  measureLength,
  type OutputFinding,
  retentionFeedback,
  type TargetStage,
  type Usage,
  type V1Fields,
  type V2Fields,
  ZERO_USAGE,
} from '@memfade/core';
import { inputCeiling, REPAIR_FEEDBACK_TOKENS, REPLY_AS_INPUT } from '../prompts/budget.js';
import {
  buildPrompt,
  type PromptOptions,
  promptKind,
  repairFeedback,
  repairMessage,
  requestBudget,
  type StagePrompt,
} from '../prompts/build-prompt.js';
import { JSON_SCHEMAS, STAGE_SCHEMAS } from '../schemas.js';
import { mayHaveBeenBilled } from './errors.js';
import type { ModelClient, ModelTurn, RepairTurn } from './model-client.js';

type Fields = V1Fields | V2Fields;

/**
 * Each output schema as sent, serialised once: every call's ceiling counts it (docs/design.md
 * invariant 14), and the schema, built once at load, is the same text for every call of a night.
 * Keyed by the schema object, so a schema built anew is serialised anew, never read from another's.
 */
const schemaTexts = new WeakMap<object, string>();
function schemaText(schema: object): string {
  let text = schemaTexts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    schemaTexts.set(schema, text);
  }
  return text;
}

/**
 * A reply that said nothing of its usage: what it billed is unknown, so it counts at what its call
 * could cost at most (docs/design.md invariant 14), on the run and on the stage, never as free. A
 * sync call's and a batch line's alike (batch-compressor.ts accept).
 */
export const atCeiling = (turn: ModelTurn, ceiling: CallCeiling): ModelTurn =>
  turn.usageMissing
    ? {
        ...turn,
        usage: { ...ZERO_USAGE, inputTokens: ceiling.inputTokens, outputTokens: ceiling.outputTokens },
      }
    : turn;

export interface Checked {
  fields?: Fields;
  /**
   * A pair's V2 draft (docs/design.md §4), when it passes its checks; a draft that still fails them
   * after the repair is dropped, not V1 with it: V2 then gets its own call on its day.
   */
  draft?: V2Fields;
  /** Problems that make the reply unusable: no JSON, schema broken, wrong language. */
  fatal: string[];
  /** Worth one repair, acceptable after: the measured length outside the target, facts missed. */
  length: string[];
}

/** A turn, and what its calls cost so far (the first reply, a truncation retry, a repair). */
export interface Answered {
  turn: ModelTurn;
  usage: Usage;
  /** The max_tokens the turn was asked with. */
  maxTokens: number;
  /** Calls made for this stage so far (all paid). */
  calls: number;
}

/**
 * A model provider behind the Compressor interface: build the prompt, call, check how the reply
 * ended (a truncated one is retried once with twice the budget; a refused one fails), validate
 * with zod, check language and length as measured here; on a problem make exactly one repair call
 * that says what was wrong in numbers; then accept, or fail the memory for good with its reason
 * (`refused`, `truncated`, `invalid`). Nothing truncated or refused is ever stored.
 */
export class ModelCompressor implements Compressor {
  constructor(
    readonly name: string,
    private readonly client: ModelClient,
    private readonly options: PromptOptions = {},
  ) {}

  /** The highest max_tokens a call may ask for (MODEL_MAX_TOKENS): a group line's budget stays under it. */
  get maxTokens(): number {
    return this.client.maxTokens;
  }

  /** How prompts are built (the time zone of their dates): a group prompt is built the same way. */
  get promptOptions(): PromptOptions {
    return this.options;
  }

  compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>> {
    return this.run('v1', request) as Promise<ModelReply<V1Fields>>;
  }

  compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>> {
    return this.run('v2', request) as Promise<ModelReply<V2Fields>>;
  }

  /** The prompt of one stage of one request, as sync calls and batch requests send it. */
  prompt(stage: TargetStage, request: CompressionRequest): StagePrompt {
    return buildPrompt(stage, request, this.options);
  }

  /**
   * Every call finish() may make for one stage of a request, at what each can cost at most
   * (docs/design.md invariant 14): the first call; when it can be cut off below the ceiling, its
   * retry with twice the budget; then the repair turn, which also sends the reply before it (at most
   * its max_tokens) and what was wrong with it. The input is the prompt as it will be sent.
   */
  ceilings(stage: TargetStage, request: CompressionRequest): CallCeiling[] {
    const prompt = this.prompt(stage, request);
    const schema = schemaText(JSON_SCHEMAS[promptKind(stage, request)]);
    const input = inputCeiling(prompt.instructions, prompt.personality, prompt.user, schema);
    const first = Math.min(prompt.maxTokens, this.client.maxTokens);
    const retry = Math.min(first * 2, this.client.maxTokens);
    // The repair turn's reply before it, sent back as input: its text is at most its max_tokens.
    const repair = (previous: number) => ({
      inputTokens: input + Math.ceil(previous * REPLY_AS_INPUT) + REPAIR_FEEDBACK_TOKENS,
      outputTokens: previous,
    });
    const calls: CallCeiling[] = [{ inputTokens: input, outputTokens: first }];
    if (retry > first) calls.push({ inputTokens: input, outputTokens: retry });
    calls.push(repair(retry));
    return calls;
  }

  private async run(stage: TargetStage, request: CompressionRequest): Promise<ModelReply<Fields>> {
    const first = await this.call(request, this.prompt(stage, request));
    return this.finish(stage, request, first);
  }

  /** One paid call; its usage goes to the request's meter as soon as the reply is in (docs/design.md invariant 9). */
  private async call(
    request: CompressionRequest,
    prompt: StagePrompt,
    repair?: RepairTurn,
  ): Promise<ModelTurn> {
    request.signal?.throwIfAborted();
    const { model } = this.client;
    const ceiling = this.callCeiling(prompt, repair);
    await request.meter?.sending(ceiling, model);
    let turn: ModelTurn;
    try {
      turn = await this.client.complete(prompt, JSON_SCHEMAS[prompt.kind], repair, request.signal);
    } catch (error) {
      // No reply came (mayHaveBeenBilled): it stays unanswered, at its ceiling.
      if (!mayHaveBeenBilled(error)) await request.meter?.refused(ceiling, model);
      throw error;
    }
    turn = atCeiling(turn, ceiling);
    await request.meter?.billed(turn.usage, model, ceiling);
    return turn;
  }

  /** What one call can cost at most: its prompt as sent (with the reply it repairs) and its max_tokens. */
  private callCeiling(prompt: StagePrompt, repair?: RepairTurn): CallCeiling {
    const schema = schemaText(JSON_SCHEMAS[prompt.kind]);
    const sent = [prompt.instructions, prompt.personality, prompt.user, schema];
    if (repair) sent.push(repair.previous, repair.feedback);
    return {
      inputTokens: inputCeiling(...sent),
      outputTokens: Math.min(prompt.maxTokens, this.client.maxTokens),
    };
  }

  /**
   * Validates a first reply (a sync call's, or a batch result line's) and, on a problem, makes the
   * one call it is worth through the sync client: a truncated reply is asked again with twice the
   * budget, a reply that breaks the schema, the language or the length gets one repair turn; then
   * accepts, or fails the memory for good.
   */
  async finish(
    stage: TargetStage,
    request: CompressionRequest,
    first: ModelTurn,
  ): Promise<ModelReply<Fields>> {
    // The prompt is built again only when a call is needed: most replies pass, and a night has many.
    let prompt: StagePrompt | undefined;
    const promptOf = () => {
      prompt ??= this.prompt(stage, request);
      return prompt;
    };
    // What the first call was asked with: the budget buildPrompt gives the request, under the ceiling.
    const budget = requestBudget(stage, request);
    let answered: Answered = {
      turn: first,
      usage: first.usage,
      maxTokens: Math.min(budget, this.client.maxTokens),
      calls: 1,
    };
    if (first.end === 'truncated') answered = await this.retryTruncated(stage, request, answered, promptOf());
    this.throwIfUnusable(stage, request, answered);
    let checked = checkTurn(stage, answered.turn, request);
    if (checked.fatal.length || checked.length.length) {
      answered = await this.repair(
        stage,
        request,
        answered,
        [...checked.fatal, ...checked.length],
        promptOf(),
      );
      this.throwIfUnusable(stage, request, answered);
      checked = checkTurn(stage, answered.turn, request);
    }
    if (!checked.fields || checked.fatal.length) {
      const problems = checked.fatal.join('; ');
      throw this.failure(stage, request, answered, 'invalid', `still after one repair: ${problems}`);
    }
    const promptVersion = promptOf().promptVersion;
    const { fields, draft } = checked;
    return {
      fields,
      ...(draft && { draft }),
      usage: answered.usage,
      model: this.client.model,
      promptVersion,
    };
  }

  /**
   * The one repair turn: the model sees its previous reply and what was wrong with it, and answers
   * again with the same budget. Reusable by any check that finds a reply worth one more try (the
   * output gates); the result is the new turn with the usage of every call so far.
   */
  async repair(
    stage: TargetStage,
    request: CompressionRequest,
    answered: Answered,
    problems: string[],
    prompt = this.prompt(stage, request),
  ): Promise<Answered> {
    const feedback = repairMessage(problems, prompt);
    const turn = await this.call(
      request,
      { ...prompt, maxTokens: answered.maxTokens },
      {
        previous: answered.turn.text,
        feedback,
      },
    );
    const usage = addUsage(answered.usage, turn.usage);
    return { turn, usage, maxTokens: answered.maxTokens, calls: answered.calls + 1 };
  }

  /**
   * A reply cut off at max_tokens, asked once more with twice the budget (up to the ceiling): a
   * long memory near the top of its target can need more than its estimate. At the ceiling already,
   * the same call would be cut off again: it fails without another call.
   */
  private async retryTruncated(
    stage: TargetStage,
    request: CompressionRequest,
    answered: Answered,
    prompt: StagePrompt,
  ): Promise<Answered> {
    const larger = Math.min(answered.maxTokens * 2, this.client.maxTokens);
    if (larger <= answered.maxTokens) {
      const detail = `cut off at max_tokens ${answered.maxTokens}, the ceiling MODEL_MAX_TOKENS`;
      throw this.failure(stage, request, answered, 'truncated', `${detail} (${answered.turn.stopReason})`);
    }
    const turn = await this.call(request, { ...prompt, maxTokens: larger });
    return {
      turn,
      usage: addUsage(answered.usage, turn.usage),
      maxTokens: larger,
      calls: answered.calls + 1,
    };
  }

  /** A turn that is still truncated (after its retry) or refused fails its memory, its calls counted. */
  private throwIfUnusable(stage: TargetStage, request: CompressionRequest, answered: Answered): void {
    const { turn } = answered;
    if (turn.end === 'truncated') {
      const detail = `cut off at max_tokens ${answered.maxTokens} (${turn.stopReason})`;
      throw this.failure(stage, request, answered, 'truncated', detail);
    }
    if (turn.end === 'refused')
      throw this.failure(stage, request, answered, 'refused', `the model declined (${turn.stopReason})`);
  }

  /**
   * Why a memory failed, as its lastError, the run's errors and `memfade status` show it: the
   * reason word comes right after the stage. Never the reply's text (it may quote the memory).
   */
  private failure(
    stage: TargetStage,
    request: CompressionRequest,
    answered: Answered,
    reason: ModelFailureReason,
    detail: string,
  ): InvalidModelOutputError {
    const calls = `${answered.calls} ${answered.calls === 1 ? 'call' : 'calls'} to ${this.name}`;
    return new InvalidModelOutputError(
      `memory ${request.memoryId}: ${stage} reply ${reason}: ${detail}; ${calls}, nothing stored`,
      { usage: answered.usage, model: this.client.model },
      reason,
    );
  }
}

/**
 * The validation every complete reply gets, sync or batch: JSON present, zod schema, language,
 * measured length. `fatal` problems make the reply unusable; `length` problems are worth one
 * repair and acceptable after it.
 */
export function checkTurn(stage: TargetStage, turn: ModelTurn, request: CompressionRequest): Checked {
  const zh = request.language === 'zh';
  if (turn.json === undefined) {
    return { fatal: [zh ? '回答不是有效的 JSON' : 'the reply was not valid JSON'], length: [] };
  }
  const kind = promptKind(stage, request);
  const parsed = STAGE_SCHEMAS[kind].safeParse(turn.json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .slice(0, 5);
    return {
      fatal: [`${zh ? '不符合输出格式' : 'the reply broke the output schema'} (${issues.join(', ')})`],
      length: [],
    };
  }
  if (kind === 'pair') return checkPair(parsed.data as { v1: V1Fields; v2: V2Fields }, request);
  const fields = parsed.data as Fields;
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  const text = stage === 'v1' ? (fields as V1Fields).compressedContent : (fields as V2Fields).coreMemory;
  return { fields, ...checkStageText(text, field, request.targetLength, request) };
}

/**
 * A pair's checks: V1's as alone, and the draft's as V2's (its own target, its language, shorter
 * than V1). What is wrong with either is said in the one repair turn;
 * a draft still wrong after it is dropped (Checked.draft), V1 is kept.
 */
function checkPair(pair: { v1: V1Fields; v2: V2Fields }, request: CompressionRequest): Checked {
  const zh = request.language === 'zh';
  const v1 = checkStageText(pair.v1.compressedContent, 'v1.compressedContent', request.targetLength, request);
  const draft = request.draft!;
  const field = 'v2.coreMemory';
  const text = pair.v2.coreMemory;
  // The draft's retention is judged when it is made V2, against V1 as V2's own is (core draft.ts):
  // against the whole conversation here it would ask a repair of most short core memories.
  const v2 = checkStageText(text, field, draft.targetLength, { ...request, retentionMin: 0 });
  // docs/design.md §4: V2 is always shorter than V1, never identical to it.
  const longer = measureLength(text) >= measureLength(pair.v1.compressedContent);
  const shorter = zh
    ? `${field} 必须比 v1.compressedContent 短`
    : `${field} must be shorter than v1.compressedContent`;
  const v2Problems = [...v2.fatal, ...v2.length, ...(longer ? [shorter] : [])];
  return {
    fields: pair.v1,
    ...(!v2.fatal.length && !longer && { draft: pair.v2 }),
    fatal: v1.fatal,
    length: [...v1.length, ...v2Problems],
  };
}

/** The checks of one stage's main text: language and length fatal or worth a repair, facts missed. */
function checkStageText(
  text: string,
  field: string,
  target: { min: number; max: number },
  request: CompressionRequest,
): { fatal: string[]; length: string[] } {
  const zh = request.language === 'zh';
  const { name, userName } = request.roleCard;
  const { findings } = checkOutput(text, target, request.language, request.text, [name, userName]);
  const say = (finding: OutputFinding) => repairFeedback(finding, field, zh);
  // Too few of the input's facts kept: worth the one repair, naming them (docs/design.md §11); what
  // is still short after it goes to the retention gate, which warns or refuses.
  const missed =
    request.retentionMin &&
    retentionFeedback(request.text, text, request.language, request.retentionMin, field);
  return {
    fatal: findings.filter(isFatal).map(say),
    length: [...findings.filter((f) => !isFatal(f)).map(say), ...(missed ? [missed] : [])],
  };
}
