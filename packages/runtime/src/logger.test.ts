import { Writable } from 'node:stream';
import { redactSecrets } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ destination }) };
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
});
