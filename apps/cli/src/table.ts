import { measureLength } from '@memfade/core';

/** Display width: CJK characters take two terminal columns. */
function width(text: string): number {
  let w = 0;
  for (const ch of text)
    w += /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/.test(
      ch,
    )
      ? 2
      : 1;
  return w;
}

function pad(text: string, to: number): string {
  return text + ' '.repeat(Math.max(0, to - width(text)));
}

/** Cuts text to a display width, marking the cut with an ellipsis. */
function cut(text: string, to: number): string {
  if (width(text) <= to) return text;
  let out = '';
  for (const ch of text) {
    if (width(`${out}${ch}`) > to - 1) break;
    out += ch;
  }
  return `${out}…`;
}

/** The terminal's width when stdout is one; undefined when piped, so piped output is never cut. */
export function terminalWidth(): number | undefined {
  return process.stdout.isTTY ? process.stdout.columns : undefined;
}

/** Columns are never cut narrower than this, however narrow the terminal. */
const MIN_COLUMN = 6;

/**
 * A plain-text table with a header row; numbers and text left-aligned for easy reading. With
 * maxWidth (the terminal's, by default), the widest columns are narrowed and their cells cut
 * until each line fits.
 */
export function table(
  header: string[],
  rows: (string | number)[][],
  maxWidth: number | undefined = terminalWidth(),
): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => width(row[i] ?? ''))));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  while (maxWidth !== undefined && total() > maxWidth) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_COLUMN) break;
    widths[widest]!--;
  }
  const line = (row: string[]) =>
    row
      .map((cell, i) => pad(cut(cell, widths[i]!), widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

/** Latin words stay whole; every other character (CJK) is its own token. */
const TOKENS = /[!-~]+|\s|./gu;

/** Wraps text to a column width (in display columns) at word boundaries, keeping every character. */
export function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let current = '';
    for (const token of paragraph.match(TOKENS) ?? []) {
      if (width(current + token) <= columns) {
        current += token;
        continue;
      }
      if (current.trim()) lines.push(current.trimEnd());
      current = token.trim() ? token : '';
      // A word longer than the column is cut.
      while (width(current) > columns) {
        lines.push([...current].slice(0, columns).join(''));
        current = [...current].slice(columns).join('');
      }
    }
    lines.push(current.trimEnd());
  }
  return lines;
}

/** Columns of text next to each other, each with a title line. */
export function sideBySide(columns: { title: string; text: string }[], totalWidth: number): string {
  const colWidth = Math.max(20, Math.floor((totalWidth - 3 * (columns.length - 1)) / columns.length));
  const wrapped = columns.map((c) => [
    c.title,
    '-'.repeat(Math.min(colWidth, width(c.title))),
    ...wrap(c.text, colWidth),
  ]);
  const height = Math.max(...wrapped.map((w) => w.length));
  const out: string[] = [];
  for (let i = 0; i < height; i++)
    out.push(
      wrapped
        .map((w) => pad(w[i] ?? '', colWidth))
        .join(' | ')
        .trimEnd(),
    );
  return out.join('\n');
}

export function chars(text: string): string {
  return `${measureLength(text)} chars`;
}
