import {
  type CompressionRequest,
  chineseScript,
  type Language,
  measureLength,
  type OutputFinding,
  type TargetStage,
} from '@memfade/core';
import { outputBudget, pairBudget, words } from './budget.js';
import { dateLine, personaSection } from './context.js';
import { escapeDataBlock } from './data-block.js';
import { instructions, PROMPT_VERSIONS, type PromptKind, TOOL_NAMES } from './instructions.js';

export { escapeDataBlock } from './data-block.js';

export interface StagePrompt {
  stage: TargetStage;
  /** `pair`: a V1 request that also asks for its V2 draft (CompressionRequest.draft). */
  kind: PromptKind;
  language: Language;
  /**
   * Stable prefix, part 1: the stage's instructions and worked example (shared by every memory of
   * this stage and language).
   */
  instructions: string;
  /** Stable prefix, part 2, last: the role card and who is who (shared by every memory of the card). */
  personality: string;
  /** The conversation's date, the memory in its data block, then its target length. */
  user: string;
  toolName: string;
  promptVersion: string;
  /** The reply's output budget (max_tokens), from the target length (budget.ts). */
  maxTokens: number;
}

export interface PromptOptions {
  /** The time zone the memory's date is a calendar day in (SCHEDULE_TZ); default UTC. */
  timeZone?: string;
}

/** The kind of call a stage's request makes: V1 with a draft asked for is the pair. */
export function promptKind(stage: TargetStage, request: CompressionRequest): PromptKind {
  return stage === 'v1' && request.draft ? 'pair' : stage;
}

/** The output budget of a stage's request (max_tokens): a pair's covers V1 and its draft. */
export function requestBudget(stage: TargetStage, request: CompressionRequest): number {
  const { language, targetLength, draft } = request;
  return draft && stage === 'v1'
    ? pairBudget(language, targetLength.max, draft.targetLength.max)
    : outputBudget(stage, language, targetLength.max);
}

function targetLine(stage: TargetStage, request: CompressionRequest): string {
  const { min, max } = request.targetLength;
  const length = measureLength(request.text);
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  // English in words, which models follow better; the characters the gate measures come last.
  const line =
    request.language === 'zh'
      ? `这条记忆约${length}字；${field} 应为${min}-${max}字。`
      : `This memory is about ${words(length)} words (${length} characters) long;\n` +
        `${field} should be about ${words(min)}-${words(max)} words (${min}-${max} characters).`;
  const draft = request.draft?.targetLength;
  if (!draft || stage !== 'v1') return line;
  // The draft's target last: the same words as V2's own target line.
  return request.language === 'zh'
    ? `${line}\nv2 的 coreMemory 应为${draft.min}-${draft.max}字。`
    : `${line}\nv2's coreMemory should be about ${words(draft.min)}-${words(draft.max)} words ` +
        `(${draft.min}-${draft.max} characters).`;
}

/**
 * A memory in traditional characters is written in them (docs/design.md §4): said in the memory's
 * part of the prompt, after its cached prefix, so simplified memories' prompts stay as they were.
 */
function scriptLine(request: CompressionRequest): string {
  if (request.language !== 'zh' || chineseScript(request.text) !== 'traditional') return '';
  return '\n这条记忆用繁体字书写：所有字段都用繁体字写，不要改成简体字。';
}

export function buildPrompt(
  stage: TargetStage,
  request: CompressionRequest,
  options: PromptOptions = {},
): StagePrompt {
  const { language } = request;
  const kind = promptKind(stage, request);
  const intro = language === 'zh' ? '以下是需要整理的记忆数据：' : 'Here is the memory data:';
  const date = dateLine(request.createdAt, language, options.timeZone ?? 'UTC');
  const memory = `<memory>\n${escapeDataBlock(request.text)}\n</memory>`;
  return {
    stage,
    kind,
    language,
    instructions: instructions(kind, language),
    personality: personaSection(request.roleCard, request.personality, language),
    user: `${date}\n${intro}\n${memory}\n\n${targetLine(stage, request)}${scriptLine(request)}`,
    toolName: TOOL_NAMES[kind],
    promptVersion: PROMPT_VERSIONS[kind][language],
    maxTokens: requestBudget(stage, request),
  };
}

/** The repair turn: what was wrong, with the measured numbers, in the memory's language. */
export function repairMessage(problems: string[], prompt: StagePrompt): string {
  return prompt.language === 'zh'
    ? `你的上一个回答不符合要求：${problems.join('；')}。请修正后重新通过 ${prompt.toolName} 提交完整结果。`
    : `Your previous answer did not meet the requirements: ${problems.join('; ')}. Fix it and submit the complete result again with ${prompt.toolName}.`;
}

/** What the repair turn tells the model about one finding, in the memory's language. */
export function repairFeedback(finding: OutputFinding, field: string, zh: boolean): string {
  switch (finding.kind) {
    case 'empty':
      return zh ? `${field} 不能为空` : `${field} must not be empty`;
    case 'wrong_language':
      return zh ? `${field} 必须用中文书写` : `${field} must be written in English`;
    case 'wrong_script':
      return finding.expected === 'traditional'
        ? `原文用繁体字书写，${field} 也必须用繁体字书写`
        : `原文用简体字书写，${field} 也必须用简体字书写`;
    case 'out_of_range': {
      const { length, target } = finding;
      return zh
        ? `${field} 实际为${length}字，要求${target.min}-${target.max}字`
        : `${field} is ${length} characters; it must be ${target.min}-${target.max}`;
    }
  }
}
