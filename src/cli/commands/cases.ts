import type { Engine } from '../../core/engine';
import { exportMatter, importMatter } from './matter';
import { formatBytes, plural, printable, table, UsageError, type CliIO, wireJson } from '../io';

export interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

/** `cases list`: every case as a table, or as JSON. */
async function listCases(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length) throw new UsageError('cases list takes no arguments');
  const { cases } = await engine.router.call('cases.list', {});
  if (json) {
    io.out(
      wireJson({
        cases: cases.map((c) => ({ id: c.id, name: c.name, created: c.created, files: c.files, bytes: c.bytes })),
      }),
    );
  } else if (cases.length === 0) {
    io.out('No cases yet. Create one with: casefile cases create "<name>"');
  } else {
    io.out(
      table(
        ['ID', 'NAME', 'FILES', 'SIZE', 'CREATED'],
        cases.map((c) => [
          c.id,
          c.name,
          String(c.files),
          formatBytes(c.bytes),
          c.created.slice(0, 16).replace('T', ' '),
        ]),
      ),
    );
  }
  return 0;
}

/** `cases create <name>`: prints the new case's id. */
async function createCase(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 1) throw new UsageError('cases create takes exactly one <name> (quote names with spaces)');
  const created = await engine.router.call('cases.create', { name: rest[0] });
  io.out(json ? wireJson({ id: created.id, name: created.name }) : created.id);
  return 0;
}

/** `cases rename <case> <new-name>`. */
async function renameCase(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 2) throw new UsageError('cases rename takes <case> <new-name>');
  const target = await engine.cases.resolve(rest[0]!);
  const renamed = await engine.router.call('cases.rename', { case_id: target.id, name: rest[1] });
  io.out(
    json ? wireJson({ id: renamed.id, name: renamed.name }) : `Renamed ${renamed.id} to "${printable(renamed.name)}"`,
  );
  return 0;
}

/** `cases delete <case> --yes`: refuses without --yes. */
async function deleteCase(engine: Engine, args: Parsed, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 1) throw new UsageError('cases delete takes <case> --yes');
  const target = await engine.cases.resolve(rest[0]!);
  if (args.values.yes !== true) {
    throw new UsageError(
      `deleting "${printable(target.name)}" (${plural(target.files, 'file')}) removes it for good; add --yes to confirm`,
    );
  }
  await engine.router.call('cases.delete', { case_id: target.id });
  io.out(json ? wireJson({ id: target.id, deleted: true }) : `Deleted case "${printable(target.name)}" (${target.id})`);
  return 0;
}

/** `cases ocr <case> [on|off] [--language CODE]`: shows or changes a case's OCR setting. */
async function caseOcr(engine: Engine, args: Parsed, rest: string[], json: boolean, io: CliIO): Promise<number> {
  const [ref, onOff, ...extra] = rest;
  if (!ref || extra.length || (onOff !== undefined && onOff !== 'on' && onOff !== 'off'))
    throw new UsageError('cases ocr takes <case> [on|off] [--language CODE]');
  const target = await engine.cases.resolve(ref);
  const language = typeof args.values.language === 'string' ? args.values.language : undefined;
  const changed =
    onOff || language
      ? await engine.router.call('cases.setOcr', {
          case_id: target.id,
          ...(onOff ? { enabled: onOff === 'on' } : {}),
          ...(language ? { language } : {}),
        })
      : target;
  const { available } = (await engine.router.call('app.info', {})).ocr;
  if (json) io.out(wireJson({ id: changed.id, ocr: changed.ocr, available }));
  else {
    io.out(
      `OCR is ${changed.ocr.enabled ? 'on' : 'off'} for "${printable(changed.name)}" (language: ${changed.ocr.language}).`,
    );
    if (!available) io.out('CASEFILE_OCR=0 turns OCR off for every case in this process.');
  }
  return 0;
}

/** `cases dates <case> [day-first|month-first]`: shows or changes how a case reads numeric dates. */
async function caseDates(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  const [ref, order, ...extra] = rest;
  if (!ref || extra.length || (order !== undefined && order !== 'day-first' && order !== 'month-first'))
    throw new UsageError('cases dates takes <case> [day-first|month-first]');
  const target = await engine.cases.resolve(ref);
  const changed = order
    ? await engine.router.call('cases.setDateOrder', { case_id: target.id, day_first: order === 'day-first' })
    : target;
  if (json) io.out(wireJson({ id: changed.id, dates: changed.dates }));
  else
    io.out(
      `"${printable(changed.name)}" reads numeric dates ${changed.dates.day_first ? 'day first (03/04/2020 is 3 April 2020)' : 'month first (03/04/2020 is 4 March 2020)'}.`,
    );
  return 0;
}

/** `casefile cases <list|create|rename|delete|ocr|dates|export|import> ...`: hands each command to its helper. */
export async function casesCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [sub, ...rest] = args.positionals;
  const json = args.values.json === true;
  switch (sub) {
    case 'list':
      return listCases(engine, rest, json, io);
    case 'create':
      return createCase(engine, rest, json, io);
    case 'rename':
      return renameCase(engine, rest, json, io);
    case 'delete':
      return deleteCase(engine, args, rest, json, io);
    case 'ocr':
      return caseOcr(engine, args, rest, json, io);
    case 'dates':
      return caseDates(engine, rest, json, io);
    case 'export':
      return exportMatter(engine, args, rest, json, io);
    case 'import':
      return importMatter(engine, args, rest, json, io);
    default:
      throw new UsageError(
        sub
          ? `unknown cases command "${sub}"`
          : 'cases needs a command: list, create, rename, delete, ocr, dates, export or import',
      );
  }
}
