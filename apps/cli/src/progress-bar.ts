// Apart from progress.ts, which follows runs through the application package: `memfade eval` shows
// this bar and loads no MongoDB, BullMQ or Redis client.

/**
 * A live progress line: done/total, rate and ETA, on stderr so stdout keeps only the result. On
 * a terminal it redraws in place; otherwise (CI, pipes) it prints a line every few seconds so
 * logs stay readable.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): {
  update(progress: { done: number; total: number; failed: number; finished?: boolean }): void;
  done(): void;
} {
  const started = Date.now();
  let lastPrint = 0;
  let printedComplete = false;
  return {
    update({ done, total, failed, finished }) {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      const eta = rate > 0 && total > done ? `${Math.ceil((total - done) / rate)} s` : '-';
      // Jobs can end before the producer has written the total that counts them: done may pass it
      // for a moment (simulate --seed 111 crashed the bar on a negative repeat).
      const share = Math.min(1, total > 0 ? done / total : finished ? 1 : 0);
      const bar = `${'#'.repeat(Math.round(share * 30))}${'-'.repeat(30 - Math.round(share * 30))}`;
      const line = `[${bar}] ${done}/${total} ${(share * 100).toFixed(0)}%  ${rate.toFixed(1)}/s  ETA ${eta}  failed ${failed}`;
      const complete = total > 0 && done >= total;
      if (stream.isTTY) stream.write(`\r${line}`);
      // Off a terminal the log also gets the line that says it got to the end, once.
      else if (Date.now() - lastPrint > 3_000 || (complete && !printedComplete)) {
        stream.write(`${line}\n`);
        lastPrint = Date.now();
        printedComplete ||= complete;
      }
    },
    done() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
