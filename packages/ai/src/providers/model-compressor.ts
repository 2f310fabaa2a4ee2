import {
  addUsage,
  type CompressionRequest,
  type Compressor,
  checkOutput,
  InvalidModelOutputError,
  isFatal,
  type ModelReply,
  type OutputFinding,
  type TargetStage,
  type V1Fields,
  type V2Fields,
} from '@memfade/core';
import { buildPrompt, repairMessage } from '../prompts/build-prompt.js';
import { PROMPT_VERSIONS } from '../prompts/instructions.js';
import { JSON_SCHEMAS, STAGE_SCHEMAS } from '../schemas.js';
import type { ModelClient, ModelTurn } from './model-client.js';

type Fields = V1Fields | V2Fields;

export interface Checked {
  fields?: Fields;
  /** Problems that make the reply unusable: no JSON, schema broken, wrong language. */
  fatal: string[];
  /** The main text's measured length is outside the target: worth one repair, acceptable after. */
  length: string[];
}

/**
 * A model provider behind the Compressor interface: build the prompt, call, validate with zod,
 * check language and length as measured here; on a problem make exactly one repair call that
 * says what was wrong in numbers; then accept, or fail the memory for good.
 */
export class ModelCompressor implements Compressor {
  constructor(
    readonly name: string,
    private readonly client: ModelClient,
  ) {}

  compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>> {
    return this.run('v1', request) as Promise<ModelReply<V1Fields>>;
  }

  compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>> {
    return this.run('v2', request) as Promise<ModelReply<V2Fields>>;
  }

  private async run(stage: TargetStage, request: CompressionRequest): Promise<ModelReply<Fields>> {
    const prompt = buildPrompt(stage, request);
    const first = await this.client.complete(prompt, JSON_SCHEMAS[stage], undefined, request.signal);
    return this.finish(stage, request, first);
  }

  /**
   * Validates a first reply (a sync call's, or a batch result's) and, on a problem, makes exactly
   * one repair call through the sync client; accepts, or fails the memory for good.
   */
  async finish(
    stage: TargetStage,
    request: CompressionRequest,
    first: ModelTurn,
  ): Promise<ModelReply<Fields>> {
    let checked = checkTurn(stage, first, request);
    let usage = first.usage;
    if (checked.fatal.length || checked.length.length) {
      // The prompt is built again only for a repair: most replies pass, and a night has many.
      const prompt = buildPrompt(stage, request);
      const feedback = repairMessage([...checked.fatal, ...checked.length], prompt);
      request.signal?.throwIfAborted();
      const second = await this.client.complete(
        prompt,
        JSON_SCHEMAS[stage],
        { previous: first.text, feedback },
        request.signal,
      );
      usage = addUsage(usage, second.usage);
      checked = checkTurn(stage, second, request);
    }
    if (!checked.fields || checked.fatal.length) {
      throw new InvalidModelOutputError(
        `memory ${request.memoryId}: ${this.name} ${stage} output invalid after one repair: ${checked.fatal.join('; ')}`,
        { usage, model: this.client.model },
      );
    }
    const promptVersion = PROMPT_VERSIONS[stage][request.language];
    return { fields: checked.fields, usage, model: this.client.model, promptVersion };
  }
}

/**
 * The validation every reply gets, sync or batch: JSON present, zod schema, language, measured
 * length. `fatal` problems make the reply unusable; `length` problems are worth one repair and
 * acceptable after it. A batch caller repairs with repairMessage([...fatal, ...length], prompt).
 */
export function checkTurn(stage: TargetStage, turn: ModelTurn, request: CompressionRequest): Checked {
  const zh = request.language === 'zh';
  if (turn.json === undefined) {
    return { fatal: [zh ? '回答不是有效的 JSON' : 'the reply was not valid JSON'], length: [] };
  }
  const parsed = STAGE_SCHEMAS[stage].safeParse(turn.json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .slice(0, 5);
    return {
      fatal: [`${zh ? '不符合输出格式' : 'the reply broke the output schema'} (${issues.join(', ')})`],
      length: [],
    };
  }
  const fields = parsed.data as Fields;
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  const text = stage === 'v1' ? (fields as V1Fields).compressedContent : (fields as V2Fields).coreMemory;
  const { findings } = checkOutput(text, request.targetLength, request.language);
  const say = (finding: OutputFinding) => repairFeedback(finding, field, zh);
  return {
    fields,
    fatal: findings.filter(isFatal).map(say),
    length: findings.filter((f) => !isFatal(f)).map(say),
  };
}

/** What the repair turn tells the model about one finding, in the memory's language. */
function repairFeedback(finding: OutputFinding, field: string, zh: boolean): string {
  switch (finding.kind) {
    case 'empty':
      return zh ? `${field} 不能为空` : `${field} must not be empty`;
    case 'wrong_language':
      return zh ? `${field} 必须用中文书写` : `${field} must be written in English`;
    case 'out_of_range': {
      const { length, target } = finding;
      return zh
        ? `${field} 实际为${length}字，要求${target.min}-${target.max}字`
        : `${field} is ${length} characters; it must be ${target.min}-${target.max}`;
    }
  }
}
