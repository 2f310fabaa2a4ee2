import { type CompressionRequest, type Language, measureLength, type TargetStage } from '@memfade/core';
import { outputBudget, words } from './budget.js';
import { dateLine, personaSection } from './context.js';
import { escapeDataBlock } from './data-block.js';
import { instructions, PROMPT_VERSIONS, TOOL_NAMES } from './instructions.js';

export { escapeDataBlock } from './data-block.js';

export interface StagePrompt {
  stage: TargetStage;
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

function targetLine(stage: TargetStage, request: CompressionRequest): string {
  const { min, max } = request.targetLength;
  const length = measureLength(request.text);
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  // English in words, which models follow better; the characters the gate measures come last.
  return request.language === 'zh'
    ? `这条记忆约${length}字；${field} 应为${min}-${max}字。`
    : `This memory is about ${words(length)} words (${length} characters) long;\n` +
        `${field} should be about ${words(min)}-${words(max)} words (${min}-${max} characters).`;
}

export function buildPrompt(
  stage: TargetStage,
  request: CompressionRequest,
  options: PromptOptions = {},
): StagePrompt {
  const { language } = request;
  const intro = language === 'zh' ? '以下是需要整理的记忆数据：' : 'Here is the memory data:';
  const date = dateLine(request.createdAt, language, options.timeZone ?? 'UTC');
  const memory = `<memory>\n${escapeDataBlock(request.text)}\n</memory>`;
  return {
    stage,
    language,
    instructions: instructions(stage, language),
    personality: personaSection(request.roleCard, request.personality, language),
    user: `${date}\n${intro}\n${memory}\n\n${targetLine(stage, request)}`,
    toolName: TOOL_NAMES[stage],
    promptVersion: PROMPT_VERSIONS[stage][language],
    maxTokens: outputBudget(stage, language, request.targetLength.max),
  };
}

/** The repair turn: what was wrong, with the measured numbers, in the memory's language. */
export function repairMessage(problems: string[], prompt: StagePrompt): string {
  return prompt.language === 'zh'
    ? `你的上一个回答不符合要求：${problems.join('；')}。请修正后重新通过 ${prompt.toolName} 提交完整结果。`
    : `Your previous answer did not meet the requirements: ${problems.join('; ')}. Fix it and submit the complete result again with ${prompt.toolName}.`;
}
