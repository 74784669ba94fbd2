import type { Engine } from '../../core/engine';
import { printable, UsageError, type CliIO } from '../io';
import type { Parsed } from './cases';

/** `casefile reindex <case> [--all] [--json]`: upgrade the case's index to the current chunking from its stored text. */
export async function reindexCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...rest] = args.positionals;
  if (!caseRef || rest.length) throw new UsageError('reindex takes <case>');
  const target = await engine.cases.resolve(caseRef);
  const json = args.values.json === true;
  const off = engine.events.on('index.progress', (e) => {
    if (e.caseId === target.id && e.state === 'running' && !json) io.err(`  ${e.done + 1}/${e.total} ${printable(e.file ?? '')}`);
  });
  try {
    const r = await engine.router.call('index.reindex', { caseId: target.id, all: args.values.all === true });
    if (json) io.out(JSON.stringify(r));
    else if (r.versions === 0) io.out(`"${printable(target.name)}" is up to date (${r.current} documents).`);
    else io.out(`Re-indexed ${r.versions} document${r.versions === 1 ? '' : 's'} of "${printable(target.name)}" (${r.chunks} passages)${r.current ? `; ${r.current} were up to date` : ''}.`);
    return 0;
  } finally {
    off();
  }
}
