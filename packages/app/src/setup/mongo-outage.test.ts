import { Writable } from 'node:stream';
import { createLogger } from '@memfade/runtime';
import { describe, expect, it } from 'vitest';
import { watchMongoOutage } from './mongo-outage.js';

function captured() {
  const lines: { msg: string; mongodb?: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const networkError = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoNetworkError' });

describe('watchMongoOutage', () => {
  it('takes only errors that say MongoDB is away, wrapped or not, and logs the outage once', () => {
    const log = captured();
    const watch = watchMongoOutage(log.logger, 'db.example:27017', async () => undefined);
    expect(watch.failed(new Error('memory m1: field "text" is not a string'))).toBe(false);
    expect(watch.failed(networkError())).toBe(true);
    expect(watch.failed(new Error('could not load memory m2', { cause: networkError() }))).toBe(true);
    // A socket error the driver let through unwrapped counts; the same error from elsewhere does not.
    const reset = (at: string) =>
      Object.assign(new Error('write ECONNRESET'), {
        code: 'ECONNRESET',
        stack: `Error: write ECONNRESET\n    at ${at}`,
      });
    expect(
      watch.failed(
        reset('Connection.writeCommand (/app/node_modules/mongodb/lib/cmap/connection.js:408:29)'),
      ),
    ).toBe(true);
    expect(watch.failed(reset('Client.query (/app/node_modules/pg/lib/client.js:526:17)'))).toBe(false);
    expect(log.lines.map((l) => l.msg)).toEqual(['MongoDB unreachable: waiting for it, with backoff']);
    expect(log.lines[0]!.mongodb).toBe('db.example:27017');
  });

  it('pings MongoDB only while it is reported away, and says it is back on the first answer', async () => {
    const log = captured();
    let pings = 0;
    let answers = false;
    const watch = watchMongoOutage(log.logger, 'db.example:27017', async () => {
      pings++;
      if (!answers) throw networkError();
    });
    await watch.check();
    expect(pings).toBe(0);
    watch.failed(networkError());
    await watch.check();
    expect(pings).toBe(1);
    answers = true;
    await watch.check();
    await watch.check();
    expect(pings).toBe(2);
    expect(log.lines.map((l) => l.msg)).toEqual([
      'MongoDB unreachable: waiting for it, with backoff',
      'MongoDB is back',
    ]);
  });
});
