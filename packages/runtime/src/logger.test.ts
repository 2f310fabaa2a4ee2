import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { redactSecrets, registerSecrets } from './redaction.js';
import { MEMFADE_VERSION } from './version.js';

function capture(level = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ destination, level }) };
}

describe('logger', () => {
  it('hides passwords inside connection strings', () => {
    expect(redactSecrets('connect ECONNREFUSED redis://default:s3cret@10.0.0.1:6379')).toBe(
      'connect ECONNREFUSED redis://default:***@10.0.0.1:6379',
    );
    expect(redactSecrets('mongodb://127.0.0.1:27017/x')).toBe('mongodb://127.0.0.1:27017/x');
  });

  it('redacts api keys and error messages carrying credentials', () => {
    const { lines, logger } = capture();
    logger.info({ provider: { apiKey: 'sk-live-123' } }, 'configured');
    logger.error({ err: new Error('cannot reach mongodb://admin:hunter2@db:27017') }, 'failed');
    const text = lines.join('');
    expect(text).not.toContain('sk-live-123');
    expect(text).not.toContain('hunter2');
    expect(text).toContain('mongodb://admin:***@db:27017');
  });

  it('logs an error by type, message, stack, code, status and cause, never the rest it carries', () => {
    const { lines, logger } = capture('trace');
    // ioredis hangs the AUTH command on a WRONGPASS error, password included; an SDK error its body.
    const wrongPass = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      command: { name: 'auth', args: ['hunter2-redis'] },
      code: 'WRONGPASS',
    });
    const sdk = Object.assign(new Error('500 server error', { cause: wrongPass }), {
      status: 500,
      error: { echoed: { 'x-api-key': 'plain-key-value' } },
    });
    logger.warn({ err: sdk }, 'job failed');
    const line = JSON.parse(lines[0]!);
    expect(line.err).toMatchObject({ type: 'Error', message: '500 server error', status: 500 });
    expect(line.err.cause).toMatchObject({
      message: 'WRONGPASS invalid username-password pair',
      code: 'WRONGPASS',
    });
    expect(lines[0]).not.toContain('hunter2-redis');
    expect(lines[0]).not.toContain('plain-key-value');
  });

  it('removes registered secret values from every part of a line, the message included, and keeps it JSON', () => {
    const { lines, logger } = capture('trace');
    registerSecrets('Zq8-registered-secret');
    logger.debug({ nested: { deeper: ['x Zq8-registered-secret y'] } }, 'key is Zq8-registered-secret');
    logger.info({ url: 'mongodb://127.0.0.1:27017/x', note: 'a@b' }, 'no password here');
    expect(lines.join('')).not.toContain('Zq8-registered-secret');
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first.msg).toBe('key is ***');
    expect(first.nested.deeper[0]).toBe('x *** y');
    // A URL without a password and an address after it are left alone.
    expect(second).toMatchObject({ url: 'mongodb://127.0.0.1:27017/x', note: 'a@b' });
  });

  it('writes the service, the version, the host and an ISO time on every line', () => {
    const { lines, logger } = capture();
    logger.info('one');
    logger.child({ runId: 'r1' }).warn('two');
    for (const line of lines.map((l) => JSON.parse(l))) {
      expect(line).toMatchObject({ service: 'memfade', version: MEMFADE_VERSION, pid: process.pid });
      expect(typeof line.hostname).toBe('string');
      expect(new Date(line.time).toISOString()).toBe(line.time);
    }
    expect(MEMFADE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
