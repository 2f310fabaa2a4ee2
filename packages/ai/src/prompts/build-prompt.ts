import { type CompressionRequest, type Language, measureLength } from '@memfade/core';
import { instructions, PROMPT_VERSIONS, personalitySection, TOOL_NAMES } from './instructions.js';

export interface StagePrompt {
  stage: 'v1' | 'v2';
  language: Language;
  /** Stable prefix, part 1: the stage's instructions (shared by every memory in this language). */
  instructions: string;
  /** Stable prefix, part 2: the role card (shared by every memory of this user). */
  personality: string;
  /** The memory in its data block, then its target length. */
  user: string;
  toolName: string;
  promptVersion: string;
}

// Any tag that could close (or open) the data block early is neutralised with a full-width '<'.
const DELIMITER = /<(\/?)(\s*)memory/gi;

/** Makes memory text safe to place between <memory> and </memory>: it can never end the block. */
export function escapeDataBlock(text: string): string {
  return text.replace(DELIMITER, '＜$1$2memory');
}

function targetLine(stage: 'v1' | 'v2', request: CompressionRequest): string {
  const { min, max } = request.targetLength;
  const length = measureLength(request.text);
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  return request.language === 'zh'
    ? `这条记忆约${length}字；${field} 应为${min}-${max}字。`
    : `This memory is about ${length} characters long; ${field} should be ${min}-${max} characters.`;
}

export function buildPrompt(stage: 'v1' | 'v2', request: CompressionRequest): StagePrompt {
  const { language } = request;
  const intro = language === 'zh' ? '以下是需要压缩的记忆数据：' : 'Here is the memory data to compress:';
  return {
    stage,
    language,
    instructions: instructions(stage, language),
    personality: personalitySection(request.personality, language),
    user: `${intro}\n<memory>\n${escapeDataBlock(request.text)}\n</memory>\n\n${targetLine(stage, request)}`,
    toolName: TOOL_NAMES[stage],
    promptVersion: PROMPT_VERSIONS[stage][language],
  };
}

/** The repair turn: what was wrong, with the measured numbers, in the memory's language. */
export function repairMessage(problems: string[], prompt: StagePrompt): string {
  return prompt.language === 'zh'
    ? `你的上一个回答不符合要求：${problems.join('；')}。请修正后重新通过 ${prompt.toolName} 提交完整结果。`
    : `Your previous answer did not meet the requirements: ${problems.join('; ')}. Fix it and submit the complete result again with ${prompt.toolName}.`;
}
