import type { Fault } from './faults.js';
import { readStageRequest, type StageRequest, stageFields } from './replies.js';

/**
 * Requests of several memories in one (memfade's MEMORIES_PER_REQUEST): each memory's own user turn
 * after a header naming its memoryId; the reply holds one item per memory, each answered exactly as
 * the memory alone would be. A `drop-item` fault leaves one item out, `break-item` breaks its schema.
 */

export const GROUP_STAGES: Record<string, StageRequest['stage']> = {
  record_v1_memories: 'v1',
  record_v2_memories: 'v2',
  record_v1_and_v2_memories: 'pair',
};

/** The header before each memory: `## memoryId "<id as a JSON string>"`. */
const HEADER = /^## memoryId ("(?:[^"\\]|\\.)*")$/gm;

export interface GroupMemberRequest {
  memoryId: string;
  request: StageRequest;
}

/** The memories of a group request, each with the id its header names. */
export function readGroupRequest(
  stage: StageRequest['stage'],
  userTexts: string[],
): GroupMemberRequest[] | undefined {
  const turn = userTexts.find((t) => /^## memoryId "/m.test(t));
  if (!turn) return undefined;
  const headers = [...turn.matchAll(HEADER)];
  const members = headers.flatMap((header, i) => {
    const section = turn.slice(header.index + header[0].length, headers[i + 1]?.index ?? turn.length);
    const request = readStageRequest(stage, [section.trim()]);
    return request ? [{ memoryId: JSON.parse(header[1]!) as string, request }] : [];
  });
  return members.length ? members : undefined;
}

/** The reply: one item per memory, with the fault's effect (`others` applies a fault to one item's fields). */
export function groupFields(
  members: GroupMemberRequest[],
  fault: Fault | undefined,
  others: (fields: Record<string, unknown>, request: StageRequest) => Record<string, unknown>,
): Record<string, unknown> {
  const target =
    fault?.kind === 'drop-item' || fault?.kind === 'break-item' ? (fault.index ?? members.length - 1) : -1;
  const memories = members.flatMap(({ memoryId, request }, i) => {
    const fields = stageFields(request);
    if (i !== target) return [{ memoryId, result: others(fields, request) }];
    if (fault?.kind === 'drop-item') return [];
    // Broken: the main text missing, as the `schema` fault breaks a single reply.
    const main = request.stage === 'v2' ? 'coreMemory' : request.stage === 'v1' ? 'compressedContent' : 'v1';
    const { [main]: _dropped, ...rest } = fields;
    return [{ memoryId, result: rest }];
  });
  return { memories };
}
