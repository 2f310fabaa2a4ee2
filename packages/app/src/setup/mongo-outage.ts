import { isMongoUnreachable } from '@memfade/db';
import { outageLog } from '@memfade/queue';
import type { Logger } from '@memfade/runtime';

/** A worker's view of MongoDB's availability, told by its jobs and its run watchdog. */
export interface MongoOutageWatch {
  /** Whether the error says MongoDB is away; if so it goes to the outage log (one line, with backoff). */
  failed(error: Error): boolean;
  /** Something read MongoDB: the outage, if one was reported, is over. */
  answered(): void;
  /** While an outage is reported, pings MongoDB: an idle worker has no job to tell it is back. */
  check(): Promise<void>;
}

export function watchMongoOutage(
  logger: Logger,
  address: string,
  ping: () => Promise<unknown>,
): MongoOutageWatch {
  const log = outageLog(logger, 'MongoDB', address);
  let away = false;
  // A ping waits up to the server selection timeout: one at a time, not one per watchdog tick.
  let pinging = false;
  const watch: MongoOutageWatch = {
    failed(error) {
      if (!isMongoUnreachable(error)) return false;
      away = true;
      log.error(error);
      return true;
    },
    answered() {
      if (!away) return;
      away = false;
      log.ready();
    },
    async check() {
      if (!away || pinging) return;
      pinging = true;
      await ping()
        .then(watch.answered, (error: Error) => watch.failed(error))
        .finally(() => {
          pinging = false;
        });
    },
  };
  return watch;
}
