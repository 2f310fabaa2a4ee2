import { feelingsIn } from './emotion.js';
import { type Reading, sourceTurn } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/**
 * The emotional core (issue 36, deliver 3): the user's first turn with a painful feeling in it (sadness
 * or fear in the eval's own lexicon: a loss, a worry). A stage keeps it when one of its sentences
 * comes from that turn (sourceTurn: word for word, or most of its content words). Applies where the
 * conversation has such a turn.
 */
export function emotionalCore(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined) return undefined;
  const core = reading.view.turns.findIndex(
    (turn, i) => reading.turns[i]!.user && feelingsIn(turn.text).some((f) => f === 'sadness' || f === 'fear'),
  );
  if (core < 0) return undefined;
  const kept = reading.split(text).some((sentence) => sourceTurn(reading, sentence) === core);
  return {
    measure: 'core',
    stage,
    ok: kept,
    ...(!kept && {
      severity: 1,
      quote: clip(reading.view.turns[core]!.text, 60),
      note: "the user's pain, not kept",
    }),
  };
}
