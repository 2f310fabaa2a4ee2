import { describe, expect, it } from 'vitest';
import { detectLanguage, measureLength, redactSecrets } from './text.js';

describe('text measures', () => {
  it('counts code points, so a Chinese character or an emoji is one', () => {
    expect(measureLength('你好😀')).toBe(3);
    expect('你好😀'.length).toBe(4);
  });

  it('detects Chinese even with some English words in it, and English otherwise', () => {
    expect(detectLanguage('我昨天买了一部新的iPhone，很开心')).toBe('zh');
    expect(detectLanguage('I bought a new phone yesterday, 很开心')).toBe('en');
    expect(detectLanguage('')).toBe('en');
  });
});

describe('redactSecrets', () => {
  // The shapes in which provider errors, gateways and drivers quote credentials.
  it.each([
    ['{"x-api-key":"k-123456789","accept":"json"}', '{"x-api-key":"***","accept":"json"}'],
    ['{\\"authorization\\":\\"Bearer abc.def\\"}', '{\\"authorization\\":\\"***\\"}'],
    ['authorization: Basic b3BzOnNlY3JldHBhc3M=', 'authorization: Basic ***'],
    ['x-api-key: k-123456789, next', 'x-api-key: ***, next'],
    ['GET /v1/models?api_key=k-123456789&x=1', 'GET /v1/models?api_key=***&x=1'],
    ['fetch http://proxy:p4ss@10.0.0.1:8080/v1 failed', 'fetch http://proxy:***@10.0.0.1:8080/v1 failed'],
    ['key sk-proj-abcdefghijkl', 'key sk-***'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'mongodb://127.0.0.1:27017/x","email":"a@b',
      'DASHBOARD_PASSWORD: required when DASHBOARD_HOST is not loopback',
      'Basic auth failed; tokens: 12, inputTokens: 3',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
