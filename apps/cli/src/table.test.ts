import { describe, expect, it } from 'vitest';
import { table } from './table.js';

const header = ['run', 'trigger', 'started', 'memories'];
const rows = [['backfill-2026-11-24T14-05-07-123Z', 'backfill', '2026-11-24T14:05:07.123Z', 1234]];

describe('table', () => {
  it('fits a narrow terminal: every line within its width, the widest columns cut with an ellipsis', () => {
    const lines = table(header, rows, 60).split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[2]).toContain('…');
    // The narrow columns keep their text.
    expect(lines[2]).toMatch(/ 1234$/);
  });

  it('cuts nothing when there is no width to fit (piped output)', () => {
    const text = table(header, rows, undefined);
    expect(text).toContain('backfill-2026-11-24T14-05-07-123Z');
    expect(text).toContain('2026-11-24T14:05:07.123Z');
    expect(text).not.toContain('…');
  });

  it('measures Chinese text in display columns (two each)', () => {
    const lines = table(['text'], [['记忆压缩记忆压缩记忆压缩']], 10).split('\n');
    expect(lines[2]).toBe('记忆压缩…');
  });
});
