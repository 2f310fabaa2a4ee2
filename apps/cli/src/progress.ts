import type { RunRecord } from '@memfade/db';

/**
 * A live progress line for a run: done/total, rate and ETA. On a terminal it redraws in place;
 * otherwise (CI, pipes) it prints a line every few seconds so logs stay readable.
 */
export function progressReporter(stream: NodeJS.WriteStream = process.stdout): {
  update(run: RunRecord): void;
  done(): void;
} {
  const started = Date.now();
  let lastPrint = 0;
  return {
    update(run) {
      const total = run.counts.enqueued;
      const done = run.counts.processed;
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      const eta = rate > 0 && total > done ? `${Math.ceil((total - done) / rate)} s` : '-';
      const share = total > 0 ? done / total : run.producerDoneAt ? 1 : 0;
      const bar = `${'#'.repeat(Math.round(share * 30))}${'-'.repeat(30 - Math.round(share * 30))}`;
      const line = `[${bar}] ${done}/${total} ${(share * 100).toFixed(0)}%  ${rate.toFixed(1)}/s  ETA ${eta}  failed ${run.counts.failed}`;
      if (stream.isTTY) stream.write(`\r${line}`);
      else if (Date.now() - lastPrint > 3_000) {
        stream.write(`${line}\n`);
        lastPrint = Date.now();
      }
    },
    done() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
