import type { CompressionRequest, TargetStage } from '@memfade/core';
import {
  buildPrompt,
  type PromptOptions,
  promptKind,
  requestBudget,
  type StagePrompt,
} from './build-prompt.js';
import { escapeDataBlock } from './data-block.js';
import { type PromptKind, TOOL_NAMES } from './instructions.js';

/**
 * Several memories of one user, language, role card and stage in one batch request
 * (MEMORIES_PER_REQUEST, docs/batch-mode.md): the stable prefix of a single request, unchanged and
 * sent once, then in the user turn what differs: a note on answering several, and each memory's own
 * user turn (its date, data block and target lengths) after a header naming its memory id. The reply
 * is one item per memory id, each in the single request's schema (schemas.ts GROUP_SCHEMAS).
 */

export const GROUP_TOOL_NAMES = {
  v1: 'record_v1_memories',
  v2: 'record_v2_memories',
  pair: 'record_v1_and_v2_memories',
} as const satisfies Record<PromptKind, string>;

/** The header before each memory: its id as a JSON string, which the reply gives back as is. */
export const groupHeader = (memoryId: string) => `## memoryId ${JSON.stringify(memoryLabel(memoryId))}`;

/** A memory id as the prompt names it: nothing in it may read as a data block's tag. */
export const memoryLabel = (memoryId: string) => escapeDataBlock(memoryId);

function groupNote(kind: PromptKind, count: number, zh: boolean): string {
  const single = TOOL_NAMES[kind];
  const group = GROUP_TOOL_NAMES[kind];
  return zh
    ? `以下是同一位用户的${count}条记忆，每条前有一行标出它的 memoryId。请按上面对一条记忆的要求分别` +
        `整理每一条（各自的日期、各自的目标长度），不要混用它们的内容。不要使用 ${single}，而是用 ` +
        `${group} 一次提交全部结果：每条记忆一项，memoryId 与给出的完全一致，result 按 ${single} 的格式。`
    : `Below are ${count} memories of the same user, each after a line naming its memoryId. Work on ` +
        'each one alone, exactly as the instructions above say for one memory (its own date, its own ' +
        `target lengths), and never mix their contents. Instead of ${single}, submit every result ` +
        `together with ${group}: one item per memory, its memoryId exactly as given, its result in ` +
        `the ${single} format.`;
}

/**
 * The prompt of a group: the first member's stable prefix (the group's members share it), and an
 * output budget that is the members' budgets summed.
 */
export function buildGroupPrompt(
  stage: TargetStage,
  requests: CompressionRequest[],
  options: PromptOptions = {},
): StagePrompt {
  const first = requests[0];
  if (!first) throw new Error('a group prompt needs at least one memory');
  const single = buildPrompt(stage, first, options);
  const sections = requests.map(
    (request) => `${groupHeader(request.memoryId)}\n${buildPrompt(stage, request, options).user}`,
  );
  const note = groupNote(single.kind, requests.length, single.language === 'zh');
  return {
    ...single,
    user: [note, ...sections].join('\n\n'),
    toolName: GROUP_TOOL_NAMES[single.kind],
    maxTokens: groupBudget(stage, requests),
  };
}

/** A group line's max_tokens: every member's own budget, summed. */
export function groupBudget(stage: TargetStage, requests: CompressionRequest[]): number {
  return requests.reduce((sum, request) => sum + requestBudget(stage, request), 0);
}

/** The kind of reply a group's members ask for (all alike: the group key holds it). */
export const groupKind = (stage: TargetStage, request: CompressionRequest) => promptKind(stage, request);
