import type { Engine } from '../../core/engine';
import { writeUserFile } from '../../core/util/fs';
import { eventCite, eventDate } from '../../shared/chronology-text';
import { printable, table, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `casefile chronology <case> [--from D] [--to D] [--query Q] [--person P] [--file NAME] [--json|--csv|--docx FILE]` */
export async function chronologyCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...rest] = args.positionals;
  if (!caseRef || rest.length) throw new UsageError('chronology takes exactly one <case>');
  const target = await engine.cases.resolve(caseRef);
  const v = args.values;
  // --file may be given more than once for ask; the chronology takes one document.
  const files = Array.isArray(v.file) ? v.file : str(v.file) ? [str(v.file)!] : [];
  if (files.length > 1) throw new UsageError('chronology takes one --file');
  const filters = {
    case_id: target.id,
    ...(str(v.from) ? { from: str(v.from) } : {}),
    ...(str(v.to) ? { to: str(v.to) } : {}),
    ...(str(v.query) ? { query: str(v.query) } : {}),
    ...(str(v.person) ? { person: str(v.person) } : {}),
    ...(files[0] ? { file_name: files[0] } : {}),
  };
  if (v.csv === true && v.docx !== undefined) throw new UsageError('choose one of --csv and --docx');
  if (v.csv === true) {
    const r = await engine.router.call('tools.timelineExport', { ...filters, format: 'csv' });
    io.out(r.csv!.replace(/\r\n$/, ''));
    return 0;
  }
  if (typeof v.docx === 'string') {
    const r = await engine.router.call('tools.timelineExport', { ...filters, format: 'docx' });
    // Atomic: a failure or a kill mid-write keeps the previous export whole.
    await writeUserFile(v.docx, Buffer.from(r.docx_base64!, 'base64'));
    io.err(`Wrote ${r.events} ${r.events === 1 ? 'event' : 'events'} to ${printable(v.docx)}`);
    return 0;
  }
  const r = await engine.router.call('tools.timeline', { ...filters, limit: 5000 });
  if (v.json === true) {
    io.out(wireJson(r));
    return 0;
  }
  if (!r.events.length) {
    io.out(
      `No dated events in "${printable(target.name)}"${Object.keys(filters).length > 1 ? ' for these filters' : ''}. Coverage: ${printable(r.coverage.line)}.`,
    );
    return 0;
  }
  io.out(
    table(
      ['DATE', 'EVENT', 'DOCUMENT', 'CITE'],
      r.events.map((e) => [eventDate(e), e.line, e.file_name, eventCite(e)]),
    ),
  );
  io.out(`\n${r.events.length} of ${r.total} events. Coverage: ${printable(r.coverage.line)}.`);
  return 0;
}
