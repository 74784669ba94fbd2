import { readFile } from 'node:fs/promises';
import type { Engine } from '../../core/engine';
import type { IngestProgress, IngestResultItem, IngestRunResult } from '../../shared/contract/ingest';
import {
  cliReason,
  formatBytes,
  ocrProgressText,
  plural,
  printable,
  semanticText,
  UsageError,
  type CliIO,
  wireJson,
} from '../io';
import type { Parsed } from './cases';
import { readHidden } from '../secret';

const STATUS_ORDER = ['indexed', 'unchanged', 'needs_ocr', 'unsupported', 'failed', 'skipped', 'cancelled'] as const;
const STATUS_WORDS: Record<string, string> = {
  indexed: 'indexed',
  unchanged: 'unchanged',
  needs_ocr: 'need OCR',
  unsupported: 'unsupported',
  failed: 'failed',
  skipped: 'skipped',
  cancelled: 'cancelled',
};

function eta(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `${seconds}s left`;
  const m = Math.floor(seconds / 60);
  return m < 60
    ? `${m}m${String(seconds % 60).padStart(2, '0')}s left`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m left`;
}

function bar(p: IngestProgress, width = 24): string {
  const frac =
    p.bytes_total > 0 ? Math.min(1, p.bytes_done / p.bytes_total) : p.files_total ? p.files_done / p.files_total : 0;
  const full = Math.round(frac * width);
  const cur = p.current[0];
  const count =
    cur && cur.done !== null && cur.total !== null
      ? ` ${cur.done}/${cur.total} ${cur.stage === 'parsing' ? 'pages' : 'chunks'}`
      : '';
  const what = cur ? ` ${ocrProgressText(cur) || `${cur.stage}${count}`} ${printable(cur.name)}` : '';
  const line = `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${p.files_done}/${p.files_total} files, ${p.pages_done} pages${p.errors ? `, ${p.errors} failed` : ''}${semanticText(p) ? ` · ${semanticText(p)}` : ''} ${eta(p.eta_seconds)}${what}`;
  const cols = process.stdout.columns || 100;
  return line.length > cols - 1 ? `${line.slice(0, cols - 2)}…` : line;
}

/** Per-status counts and the reasons of what did not go in. */
export function summarize(results: IngestResultItem[]): string {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const parts = STATUS_ORDER.filter((s) => counts.get(s)).map((s) => `${counts.get(s)} ${STATUS_WORDS[s]}`);
  const lines = [`${results.length} file${results.length === 1 ? '' : 's'}: ${parts.join(', ') || 'nothing to do'}`];
  for (const r of results) {
    if (r.status === 'failed' || r.status === 'unsupported' || r.status === 'needs_ocr' || r.status === 'skipped')
      lines.push(`  ${STATUS_WORDS[r.status]}: ${printable(r.name)} — ${printable(cliReason(r.reason, r.name) ?? '')}`);
  }
  return lines.join('\n');
}

/** `casefile ingest <case> <path...> [--json]` */
export async function ingestCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...paths] = args.positionals;
  if (!caseRef || paths.length === 0) throw new UsageError('ingest takes <case> and at least one file or folder');
  const json = args.values.json === true;
  const target = await engine.cases.resolve(caseRef);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const live = io.isTTY && !json;
  let lastLine = 0;
  const offProgress = engine.events.on('ingest.progress', (p) => {
    if (p.case_id !== target.id || !live) return;
    const now = Date.now();
    if (p.state === 'running' && now - lastLine < 100) return;
    lastLine = now;
    process.stdout.write(`\r\x1b[2K${bar(p)}`);
  });
  const offFile = engine.events.on('ingest.file', (e) => {
    if (e.case_id !== target.id || json || live) return;
    if (e.status === 'parsing' || e.status === 'embedding' || e.status === 'queued') return;
    io.out(
      `${STATUS_WORDS[e.status] ?? e.status}: ${printable(e.name)} (v${e.version}${e.pages ? `, ${plural(e.pages, 'page')}` : ''})${e.reason ? ` — ${printable(cliReason(e.reason, e.name) ?? '')}` : ''}`,
    );
  });
  let run: IngestRunResult;
  try {
    const out = await engine.router.call(
      'ingest.start',
      { case_id: target.id, paths, ...(args.values.searchable === true ? { searchable: true } : {}) },
      { signal: controller.signal },
    );
    if (!('results' in out)) throw new Error('ingest did not wait for its results');
    run = out;
  } finally {
    offProgress();
    offFile();
    process.off('SIGINT', onSigint);
    if (live) process.stdout.write('\r\x1b[2K');
  }
  if (json) {
    io.out(
      wireJson({
        results: run.results.map((r) => ({
          name: r.name,
          version: r.version,
          status: r.status,
          reason: cliReason(r.reason, r.name),
        })),
      }),
    );
  } else {
    const stats = await engine.cases.get(target.id);
    io.out(summarize(run.results));
    io.out(`Case "${printable(stats.name)}" now holds ${plural(stats.files, 'file')} (${formatBytes(stats.bytes)}).`);
    if (run.state === 'cancelled') io.out('Cancelled. Run the same command again to finish the rest.');
  }
  return run.state === 'cancelled' ? 130 : 0;
}

/** `casefile retry <case> <file> [--json]`: read a failed or set-aside file again (file id or unique name). */
/** The case and file a `<case> <file>` pair names (a file id or its unique name). */
async function caseFile(engine: Engine, args: Parsed, command: string) {
  const [caseRef, fileRef, ...extra] = args.positionals;
  if (!caseRef || !fileRef || extra.length)
    throw new UsageError(`${command} takes <case> and <file> (a file id or name)`);
  const target = await engine.cases.resolve(caseRef);
  const { files } = await engine.router.call('files.list', { case_id: target.id });
  const byId = files.find((f) => f.id === fileRef);
  const byName = files.filter((f) => f.name === fileRef);
  const file = byId ?? (byName.length === 1 ? byName[0] : undefined);
  if (!file)
    throw new UsageError(
      byName.length > 1
        ? `${byName.length} files are named "${fileRef}"; give the file id`
        : `no file "${fileRef}" in case "${target.name}"`,
    );
  return { target, file };
}

export async function retryCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const json = args.values.json === true;
  const { target, file } = await caseFile(engine, args, 'retry');
  const run = await engine.router.call('files.retry', { case_id: target.id, file_id: file.id });
  if (!('results' in run)) throw new Error('retry did not wait for its results');
  if (json)
    io.out(
      wireJson({
        results: run.results.map((r) => ({
          name: r.name,
          version: r.version,
          status: r.status,
          reason: cliReason(r.reason, r.name),
        })),
      }),
    );
  else io.out(summarize(run.results));
  return 0;
}

/** The password: the first line of --password-file, typed on the terminal, or the first line piped in. */
export async function passwordFrom(args: Parsed, name: string): Promise<string> {
  const file = args.values['password-file'];
  if (typeof file === 'string') {
    const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`could not read the password file ${file} (${err.code ?? err.message})`);
    });
    return text.split(/\r?\n/)[0] ?? '';
  }
  if (process.stdin.isTTY) return readHidden(`Password for ${name}: `);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export async function unlockCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const json = args.values.json === true;
  const { target, file } = await caseFile(engine, args, 'unlock');
  const password = await passwordFrom(args, file.name);
  if (!password) throw new UsageError('no password given');
  const r = await engine.router.call('files.unlock', { case_id: target.id, file_id: file.id, password });
  const results = r.run && 'results' in r.run ? r.run.results : [];
  if (json)
    io.out(
      wireJson({
        name: r.name,
        reread: r.reread,
        results: results.map((x) => ({
          name: x.name,
          version: x.version,
          status: x.status,
          reason: cliReason(x.reason, x.name),
        })),
      }),
    );
  else io.out(r.reread ? summarize(results) : `${printable(r.name)} is unlocked: its pages can be shown.`);
  return 0;
}
