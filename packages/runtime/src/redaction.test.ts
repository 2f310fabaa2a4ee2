import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redaction.js';

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
