import type { CompressionRequest, Language, TargetStage } from '@memfade/core';
import { formatPersonality, measureLength } from '@memfade/core';
import { anthropicParams } from '../providers/anthropic-client.js';
import { JSON_SCHEMAS } from '../schemas.js';
import { buildPrompt } from './build-prompt.js';

/**
 * The sample memories docs/prompts.md renders, and the rendering: the prompt exactly as the
 * Anthropic client sends it (system blocks, then the user turn). The checklist test holds the
 * document to it, so the docs show the prompts as they are.
 */
export const SAMPLES: Record<Language, CompressionRequest> = {
  zh: sample('zh', {
    text: [
      'user: 昨天体检报告出来了，医生说我血压有点高，让我下周五再去复查。',
      'assistant: 别太担心，很多人调整作息就能降下来。医生有没有说要注意什么？',
      'user: 少吃盐，每天走路半小时。可我每天加班到十点，哪有时间啊？',
      'assistant: 可以先从午休散步十五分钟开始，慢慢来。',
      'user: 好吧，我试试。周六我妈过生日，我还得回杭州一趟。',
    ].join('\n'),
    card: {
      userId: 'u-zh',
      name: '小雅',
      userName: '阿明',
      personality: '温柔、细心',
      speakingStyle: '轻声细语',
    },
    createdAt: '2026-11-17T02:30:00Z',
  }),
  en: sample('en', {
    text: [
      'user: I finally booked the flights to Lisbon! We leave on the 3rd, back on the 10th.',
      'assistant: That is wonderful! Who are you going with?',
      "user: Just me and Priya. It's our first trip since the wedding, but I'm worried about the cost.",
      'assistant: What part of the budget worries you most?',
      'user: The hotel. It was 1,200 euros for the week and we still need to pay for the car.',
    ].join('\n'),
    card: { userId: 'u-en', name: 'Mia', personality: 'curious, warm', speakingStyle: 'playful' },
    createdAt: '2026-11-19T18:00:00Z',
  }),
};

function sample(
  language: Language,
  memory: { text: string; card: CompressionRequest['roleCard']; createdAt: string },
): CompressionRequest {
  const length = measureLength(memory.text);
  return {
    memoryId: `sample-${language}`,
    language,
    personality: formatPersonality(memory.card, language),
    roleCard: memory.card,
    text: memory.text,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
    createdAt: new Date(memory.createdAt),
  };
}

/** One prompt as the Anthropic client sends it, block by block, for the docs. */
export function renderPrompt(stage: TargetStage, request: CompressionRequest): string {
  const prompt = buildPrompt(stage, request);
  const params = anthropicParams(
    { model: 'claude-sonnet-4-5', maxTokens: 16_000 },
    prompt,
    JSON_SCHEMAS[stage],
  );
  const system = params.system as { text: string; cache_control?: unknown }[];
  const block = (title: string, text: string) => `#### ${title}\n\n\`\`\`text\n${text}\n\`\`\``;
  return [
    block(
      'system[0]: instructions and example (shared by every memory of the stage and language)',
      system[0]!.text,
    ),
    block('system[1]: the role card, last in the stable prefix (`cache_control` here)', system[1]!.text),
    block(
      `user: the date, the memory, its target (max_tokens ${params.max_tokens})`,
      String(params.messages[0]!.content),
    ),
  ].join('\n\n');
}
