import type { Engine } from '../../core/engine';
import { writeUserFile } from '../../core/util/fs';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `casefile audit check [--json]`: 0 when the chain is intact, 1 with the first break's reason. */
async function checkCommand(engine: Engine, json: boolean, io: CliIO): Promise<number> {
  const r = await engine.router.call('audit.check', {});
  if (json) io.out(wireJson(r));
  else if (r.broken) io.err(`casefile: the audit trail is broken at line ${r.broken.line}: ${r.broken.message}`);
  else if (!r.head) io.out(`The audit trail is empty: nothing has been recorded in ${printable(r.file)} yet.`);
  else
    io.out(
      `The audit trail is intact: ${r.entries} ${r.entries === 1 ? 'entry' : 'entries'}, the last one ${r.head.seq} with hash ${r.head.hash}.`,
    );
  return r.intact ? 0 : 1;
}

/** `casefile audit export [--case ID_OR_NAME] [--from DATE] [--to DATE] --out FILE.csv` */
async function exportCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const v = args.values;
  const out = str(v.out);
  if (!out) throw new UsageError('audit export needs --out FILE.csv');
  // A case deleted since is no longer in the registry: its id still finds its entries.
  const caseRef = str(v.case);
  const caseId = caseRef
    ? await engine.cases.resolve(caseRef).then(
        (c) => c.id,
        () => caseRef,
      )
    : undefined;
  const r = await engine.router.call('audit.export', {
    ...(caseId ? { case_id: caseId } : {}),
    ...(str(v.from) ? { from: str(v.from) } : {}),
    ...(str(v.to) ? { to: str(v.to) } : {}),
  });
  await writeUserFile(out, r.csv);
  if (v.json === true) io.out(wireJson({ file: out, entries: r.entries, intact: r.intact }));
  else io.err(`Wrote ${r.entries} ${r.entries === 1 ? 'entry' : 'entries'} to ${printable(out)}`);
  if (!r.intact) io.err('casefile: warning: the audit trail is broken; run `casefile audit check` to see where.');
  return 0;
}

/** `casefile audit check|export …`: the audit trail a server started with --audit keeps. */
export async function auditCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [sub, ...rest] = args.positionals;
  if (rest.length) throw new UsageError(`audit ${sub ?? ''} takes no other arguments`);
  if (sub === 'check') return checkCommand(engine, args.values.json === true, io);
  if (sub === 'export') return exportCommand(engine, args, io);
  throw new UsageError('audit takes check or export');
}
