/**
 * The room a V1 leaves its V2 (the offline compressor's core memory): the range asked for, never V1
 * again (docs/design.md §4).
 */

/** V2 is at most this share of V1: stage.ts V2_SHARE_OF_V1, the rule both sides keep. */
const V2_SHARE_OF_V1 = 0.8;
/** How far under V1's cap a capped V2 may end (a few characters: the pipeline measures V1 a little differently). */
export const CAPPED_SLACK = 2;

/**
 * The V2 range for a V1 of `length`: the range asked for, at most V2_SHARE_OF_V1 of V1 (as stage.ts
 * plans it), so V2 is never V1 again even when a caller asks for more. `capped` when V1 caps it:
 * the pipeline then lowers its minimum to leave a model some width (stage.ts planStage); an
 * extractive compressor needs none, so a capped core memory uses the room V1 leaves it, which
 * keeps it within the configured range whenever V1 is long enough for that (docs/design.md §4).
 */
export function shorterThan(
  length: number,
  target: { min: number; max: number },
): { min: number; max: number; capped: boolean } {
  const room = Math.floor(length * V2_SHARE_OF_V1);
  const max = Math.max(1, Math.min(target.max, room));
  return {
    min: target.min <= max ? target.min : Math.floor(max / 2),
    max,
    capped: max >= room - CAPPED_SLACK,
  };
}
