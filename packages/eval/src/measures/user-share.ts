import { type Reading, sourceTurn } from './reading.js';
import type { Finding, MeasureStage } from './types.js';

/** A stage is the user's first when at least this share of what it keeps from the turns is theirs. */
const USERS_AT_LEAST = 0.5;

/**
 * The user first (issue 36, deliver 3): the share of the stage's sentences with a known source
 * turn (sourceTurn: word for word, or most of its content words) that come from the user's turns,
 * by length. Fails where the companion's lines and other speakers take more than half. Applies
 * where a sentence's source is known; the note gives the share, so a set's reader sees how much.
 */
export function userShare(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined) return undefined;
  let [user, known] = [0, 0];
  for (const sentence of reading.split(text)) {
    const turn = sourceTurn(reading, sentence);
    if (turn === undefined) continue;
    const length = [...sentence].length;
    known += length;
    if (reading.turns[turn]!.user) user += length;
  }
  if (known === 0) return undefined;
  const share = user / known;
  return {
    measure: 'user',
    stage,
    ok: share >= USERS_AT_LEAST,
    ...(share < USERS_AT_LEAST && { severity: 1 - share }),
    note: `${Math.round(share * 100)}% the user's`,
  };
}
