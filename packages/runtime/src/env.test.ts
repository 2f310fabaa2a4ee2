import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, parseEnv, unsetEmpty } from './env.js';

describe('parseEnv', () => {
  const schema = z.object({ PORT: z.coerce.number().int(), NAME: z.string().default('memfade') });

  it('fails with a ConfigError naming every offending variable', () => {
    const parse = () => parseEnv(schema, { PORT: 'eighty' });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/PORT: /);
  });

  it('treats an empty value as unset, so defaults apply', () => {
    expect(parseEnv(schema, unsetEmpty({ PORT: '80', NAME: '' }))).toEqual({ PORT: 80, NAME: 'memfade' });
  });
});
