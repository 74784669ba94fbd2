import type { Engine } from '../../core/engine';
import { CasefileError } from '../../shared/errors';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const pagesLabel = (pages: number[]) =>
  pages.length > 1 ? `pp. ${pages[0]}–${pages[pages.length - 1]}` : `p. ${pages[0] ?? 1}`;

/** `casefile outline <case> <file> [--section REF] [--json]`: a document's headings, or one section's text. */
export async function outlineCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, fileRef, ...rest] = args.positionals;
  if (!caseRef || !fileRef || rest.length) throw new UsageError('outline takes <case> and <file> (a file id or name)');
  const target = await engine.cases.resolve(caseRef);
  const { files } = await engine.router.call('files.list', { case_id: target.id });
  const byName = files.filter((f) => f.name === fileRef);
  const file = files.find((f) => f.id === fileRef) ?? (byName.length === 1 ? byName[0] : undefined);
  if (!file) {
    throw new CasefileError(
      'not_found',
      byName.length > 1
        ? `${byName.length} files are named "${fileRef}"; give the file id (casefile files "${target.name}" --json).`
        : `No file "${fileRef}" in case "${target.name}" (see: casefile files "${target.name}").`,
    );
  }
  const section = typeof args.values.section === 'string' ? args.values.section : undefined;
  if (section !== undefined) {
    const r = await engine.router.call('tools.readSection', { case_id: target.id, file_id: file.id, section });
    if (args.values.json === true) io.out(wireJson(r));
    else
      io.out(
        `${printable(r.file_name)} v${r.version}, ${pagesLabel(r.pages)}:\n\n${printable(r.text, { lines: true })}`,
      );
    return 0;
  }
  const outline = await engine.router.call('tools.outline', { case_id: target.id, file_id: file.id });
  if (args.values.json === true) {
    io.out(wireJson(outline));
    return 0;
  }
  if (!outline.sections.length) {
    io.out(`No headings were found in ${printable(outline.file_name)}; search it or read it instead.`);
    return 0;
  }
  io.out(`${printable(outline.file_name)} v${outline.version}: ${outline.sections.length} headings`);
  for (const s of outline.sections) {
    const label = [s.number, s.title].filter(Boolean).join(' ') || '(untitled)';
    io.out(`${s.id.padEnd(5)} ${'  '.repeat(Math.max(0, s.level - 1))}${printable(label)}  (${pagesLabel(s.pages)})`);
  }
  if (outline.defined_terms?.length) {
    io.out(
      `\nDefined terms (${outline.defined_terms.length}): ${outline.defined_terms.map((d) => `“${printable(d.term)}” (${pagesLabel(d.pages)})`).join(', ')}`,
    );
  }
  io.out(
    `\nRead a section with: casefile outline "${printable(target.name)}" "${printable(file.name)}" --section <id|number|title>`,
  );
  return 0;
}
