import type { Engine } from '../../core/engine';
import { CasefileError } from '../../shared/errors';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

/** `casefile bates <case> <file> <PREFIX>|--none [--json]`: the Bates prefix a document is stamped with. */
export async function batesCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, fileRef, prefix, ...rest] = args.positionals;
  const none = args.values.none === true;
  if (!caseRef || !fileRef || rest.length || (prefix === undefined) === !none)
    throw new UsageError('bates takes <case> <file> and a <PREFIX>, or --none');
  const target = await engine.cases.resolve(caseRef);
  const { files } = await engine.router.call('files.list', { case_id: target.id });
  const named = files.filter((f) => f.name === fileRef);
  const file = files.find((f) => f.id === fileRef) ?? (named.length === 1 ? named[0] : undefined);
  if (!file)
    throw new CasefileError(
      'not_found',
      `No file "${fileRef}" in case "${target.name}" (see: casefile files "${target.name}").`,
    );
  const { file: changed } = await engine.router.call('files.setBates', {
    case_id: target.id,
    file_id: file.id,
    prefix: none ? null : prefix!,
  });
  const bates = changed.versions.at(-1)?.bates;
  if (args.values.json === true) io.out(wireJson({ id: changed.id, name: changed.name, bates: bates ?? null }));
  else
    io.out(
      bates
        ? `${printable(changed.name)}: Bates ${printable(bates.first)}–${printable(bates.last)}`
        : `${printable(changed.name)}: not Bates-stamped`,
    );
  return 0;
}
