export { formatBytes, plural } from '../shared/format';

/** Where a command writes. Tests pass buffers; the binary passes the process streams. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stdout is a terminal (live progress bars instead of plain lines). */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Left-aligned plain-text table. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}
