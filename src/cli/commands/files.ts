import type { Engine } from '../../core/engine';
import type { FileInfo } from '../../shared/contract/ingest';
import { fileSemanticText, sourceRemovedText } from '../../shared/format';
import { cliReason, plural, printable, table, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const STATUS_WORDS: Record<string, string> = { needs_ocr: 'needs OCR' };

/** `casefile files <case> [--json]` */
export async function filesCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...rest] = args.positionals;
  if (!caseRef || rest.length) throw new UsageError('files takes exactly one <case>');
  const target = await engine.cases.resolve(caseRef);
  const { files } = await engine.router.call('files.list', { case_id: target.id });
  if (args.values.json === true) {
    io.out(
      wireJson({
        files: files.map((f) => ({
          id: f.id,
          name: f.name,
          version: f.version,
          versions: f.versions.map((v) => v.version),
          type: f.type,
          pages: f.pages,
          status: f.status,
          reason: cliReason(f.reason, f.name),
          date: f.date,
          kind: f.versions.at(-1)?.kind ?? 'unknown',
          ...(f.versions.at(-1)?.ocr_pages ? { ocr_pages: f.versions.at(-1)!.ocr_pages } : {}),
          ...(f.locked ? { locked: f.locked } : {}),
          ...(f.email ? { email: f.email } : {}),
          ...(f.parent ? { parent: f.parent } : {}),
          ...(f.children ? { children: f.children } : {}),
          ...(f.versions.at(-1)?.annotations ? { annotations: f.versions.at(-1)!.annotations } : {}),
          ...(f.versions.at(-1)?.bates ? { bates: f.versions.at(-1)!.bates } : {}),
          ...(f.versions.at(-1)?.transcript ? { transcript: f.versions.at(-1)!.transcript } : {}),
          ...(f.source_removed ? { source_removed: f.source_removed } : {}),
          ...(f.semantic ? { semantic: f.semantic } : {}),
          ...(f.title ? { title: f.title } : {}),
        })),
      }),
    );
    return 0;
  }
  if (files.length === 0) {
    const name = printable(target.name);
    io.out(`No files in "${name}" yet. Add some with: casefile ingest "${name}" <folder>`);
    return 0;
  }
  io.out(
    table(
      ['NAME', 'VERSION', 'TYPE', 'PAGES', 'DATE', 'STATUS'],
      files.map((f) => [
        f.name,
        f.versions.length > 1
          ? `v${f.version} (of ${f.versions.map((v) => `v${v.version}`).join(',')})`
          : `v${f.version}`,
        f.type.replace('_', ' '),
        String(f.pages),
        f.date,
        `${STATUS_WORDS[f.status] ?? f.status}${ocrCount(f)}${f.reason ? ` — ${cliReason(f.reason, f.name)}` : ''}${relation(f)}`,
      ]),
    ),
  );
  return 0;
}

/** " · email from Jane Doe: “Re: Notice” · 2 attachments" / " · attached to Re: Notice" */
function relation(f: FileInfo): string {
  const parts: string[] = [];
  if (f.email)
    parts.push(`email from ${f.email.from || 'unknown sender'}${f.email.subject ? `: “${f.email.subject}”` : ''}`);
  if (f.parent)
    parts.push(f.parent.subject !== undefined ? `attached to “${f.parent.subject}”` : `in ${f.parent.name}`);
  if (f.children) parts.push(plural(f.children, f.kind === 'email' ? 'attachment' : 'file'));
  const latest = f.versions.at(-1);
  if (latest?.annotations) parts.push(latest.annotations.summary);
  if (latest?.bates) parts.push(`Bates ${latest.bates.first}–${latest.bates.last}`);
  if (f.source_removed) parts.push(sourceRemovedText(f));
  if (fileSemanticText(f)) parts.push(fileSemanticText(f));
  if (latest?.transcript)
    parts.push(
      `transcript${latest.transcript.deponent ? ` (${latest.transcript.deponent} Dep.)` : ''}, pp. ${latest.transcript.first_page}–${latest.transcript.last_page}`,
    );
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

/** " (OCR, 43 pages)" for a file whose latest version was read by OCR. */
function ocrCount(f: FileInfo): string {
  const n = f.versions.at(-1)?.ocr_pages?.length ?? 0;
  return n ? ` (OCR, ${plural(n, 'page')})` : '';
}
