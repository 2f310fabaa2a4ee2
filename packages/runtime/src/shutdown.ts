import type { Logger } from 'pino';

type Step = { name: string; run: () => Promise<unknown> };

const SIGNAL_NUMBERS: Record<string, number> = { SIGINT: 2, SIGTERM: 15 };

/**
 * Runs shutdown steps in the order they were added (stop scheduling, close workers, flush,
 * disconnect: docs/design.md §10), once, then exits with 128 + the signal number.
 */
export class ShutdownManager {
  private readonly steps: Step[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly graceMs = 30_000,
  ) {}

  add(name: string, run: () => Promise<unknown>): this {
    this.steps.push({ name, run });
    return this;
  }

  /** Runs every step even if one fails; resolves when all have ended or the grace period is over. */
  shutdown(reason: string): Promise<void> {
    this.running ??= this.runSteps(reason);
    return this.running;
  }

  listen(exit: (code: number) => void = (code) => process.exit(code)): void {
    for (const signal of Object.keys(SIGNAL_NUMBERS)) {
      process.once(signal, () => {
        void this.shutdown(signal).then(() => exit(128 + (SIGNAL_NUMBERS[signal] ?? 0)));
      });
    }
  }

  private async runSteps(reason: string): Promise<void> {
    this.logger.info({ reason }, 'shutting down');
    const deadline = new Promise<'timeout'>((resolve) =>
      setTimeout(resolve, this.graceMs, 'timeout').unref(),
    );
    const all = (async () => {
      for (const step of this.steps) {
        try {
          await step.run();
        } catch (err) {
          this.logger.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
    })();
    if ((await Promise.race([all, deadline])) === 'timeout') {
      this.logger.warn({ graceMs: this.graceMs }, 'shutdown grace period over; exiting anyway');
    }
  }
}
