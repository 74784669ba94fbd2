import { LOCKED_REASON } from '../shared/contract/ingest';
import { withFormerNames } from '../shared/wire-names';
export { formatBytes, ocrProgressText, plural, semanticText } from '../shared/format';

/**
 * The one line `--json` prints for `value`: the wire's snake_case names, and until 0.2 each renamed
 * field's former camelCase name beside it (`withFormerNames`, docs/cli.md).
 */
export function wireJson(value: unknown): string {
  return JSON.stringify(withFormerNames(value));
}

/** A file's reason as the CLI says it: a locked PDF's adds the command that unlocks it. */
export function cliReason(reason: string | undefined, name: string): string | undefined {
  return reason === LOCKED_REASON ? `${reason} (casefile unlock <case> "${name}")` : reason;
}

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

/**
 * Characters a terminal acts on instead of showing: C0 and C1 controls (ESC starts colour, title
 * and cursor sequences; BEL ends a title; CR/LF move the cursor), DEL, line/paragraph separators,
 * and the bidi embeddings, overrides and isolates that reorder what follows them.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` safe to print on a terminal: every control character and bidi override written as an
 * escape (`\x1b`, `\n`, `\u202e`), so a file name cannot recolour the terminal, retitle its
 * window, add lines or reorder a row. `lines`: keep line breaks and tabs (multi-line text such as
 * an answer). JSON output is printed exact, never through this.
 */
export function printable(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(UNSAFE, (c) => {
    if (options.lines && (c === '\n' || c === '\t')) return c;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The IO a command gets: what it prints for people is escaped (`printable`); `--json` stdout stays exact. */
export function safeIO(io: CliIO, json: boolean): CliIO {
  return {
    ...io,
    out: json ? io.out : (text) => io.out(printable(text, { lines: true })),
    err: (text) => io.err(printable(text, { lines: true })),
  };
}

/** Left-aligned plain-text table; cells are shown escaped (one line each). */
export function table(headers: string[], rawRows: string[][]): string {
  const rows = rawRows.map((r) => r.map((c) => printable(c)));
  const widths = headers.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}
