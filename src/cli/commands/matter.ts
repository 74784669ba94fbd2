import path from 'node:path';
import type { Engine } from '../../core/engine';
import { formatBytes, plural, printable, UsageError, type CliIO, wireJson } from '../io';
import { readHidden } from '../secret';

/** The parsed options this command reads (the shape `casesCommand` passes). */
interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
}

/** The passphrase: typed on the terminal (twice when locking), or the first line piped in. */
async function passphraseFrom(args: Parsed, locking: boolean): Promise<string | undefined> {
  if (args.values['passphrase-stdin'] !== true) return undefined;
  let passphrase: string;
  if (process.stdin.isTTY) {
    passphrase = await readHidden('Passphrase: ');
    if (locking && (await readHidden('The same passphrase again: ')) !== passphrase)
      throw new UsageError('the two passphrases differ; nothing was exported');
  } else {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    passphrase = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  }
  if (!passphrase) throw new UsageError('no passphrase given');
  return passphrase;
}

/** `cases export <case> --out FILE [--passphrase-stdin]`: one case as one matter file. */
export async function exportMatter(engine: Engine, args: Parsed, rest: string[], json: boolean, io: CliIO) {
  const out = args.values.out;
  if (rest.length !== 1 || typeof out !== 'string' || !out)
    throw new UsageError('cases export takes <case> --out FILE.casefile [--passphrase-stdin]');
  const target = await engine.cases.resolve(rest[0]!);
  const passphrase = await passphraseFrom(args, true);
  const done = await engine.router.call('cases.export', {
    case_id: target.id,
    out: path.resolve(out),
    ...(passphrase ? { passphrase } : {}),
  });
  if (json) io.out(wireJson({ id: done.case_id, ...done }));
  else
    io.out(
      `Exported "${printable(done.name)}" (${done.case_id}) to ${printable(done.path)}: ${plural(done.files, 'file')}, ${formatBytes(done.bytes)}${done.encrypted ? ', locked with a passphrase' : ''}.`,
    );
  return 0;
}

/** `cases import FILE [--passphrase-stdin]`: a matter file back into a case (a new version of it when it is here). */
export async function importMatter(engine: Engine, args: Parsed, rest: string[], json: boolean, io: CliIO) {
  if (rest.length !== 1) throw new UsageError('cases import takes FILE.casefile [--passphrase-stdin]');
  const passphrase = await passphraseFrom(args, false);
  const done = await engine.router.call('cases.import', {
    path: path.resolve(rest[0]!),
    ...(passphrase ? { passphrase } : {}),
  });
  const earlier = done.earlier ? { id: done.earlier.id, name: done.earlier.name } : null;
  if (json) {
    const { case: imported, ...restOf } = done;
    io.out(wireJson({ id: imported.id, name: imported.name, ...restOf, earlier }));
    return 0;
  }
  io.out(`Imported "${printable(done.case.name)}" (${done.case.id}): ${plural(done.files, 'file')} checked.`);
  if (earlier)
    io.out(
      `It replaces the case of the same id here, which is kept as "${printable(earlier.name)}" (${earlier.id}); nothing was deleted.`,
    );
  return 0;
}
