import type { Engine } from '../../core/engine';
import type { IndexVectorsStatus } from '../../shared/contract/ingest';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

/**
 * The case's passages that wait for vectors (indexed before its embedding model, or under another
 * one) made now, in the foreground: what the desktop app and serve do in the background.
 */
async function catchUpVectors(engine: Engine, caseId: string, io: CliIO, json: boolean): Promise<IndexVectorsStatus> {
  const status = await engine.router.call('index.vectors', { case_id: caseId });
  if (status.state !== 'needed') return status;
  let shown = -1;
  let off = () => {};
  const ended = new Promise<IndexVectorsStatus>((resolve) => {
    off = engine.events.on('index.vectors', (e) => {
      if (e.case_id !== caseId) return;
      const pct = e.total ? Math.floor((e.embedded / e.total) * 100) : 100;
      if (e.state === 'running' && !json && pct !== shown)
        io.err(`  searchable by meaning: ${(shown = pct)}% (${e.embedded} of ${e.total} passages)`);
      if (e.state === 'done' || e.state === 'failed' || e.state === 'none') resolve(e);
    });
  });
  try {
    await engine.router.call('index.catchUp', { case_id: caseId });
    return await ended;
  } finally {
    off();
  }
}

/**
 * `casefile reindex <case> [--all] [--json]`: upgrade the case's index to the current chunking from
 * its stored text, then give the passages that wait for vectors theirs.
 */
export async function reindexCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...rest] = args.positionals;
  if (!caseRef || rest.length) throw new UsageError('reindex takes <case>');
  const target = await engine.cases.resolve(caseRef);
  const json = args.values.json === true;
  const off = engine.events.on('index.progress', (e) => {
    if (e.case_id === target.id && e.state === 'running' && !json)
      io.err(`  ${e.done + 1}/${e.total} ${printable(e.file ?? '')}`);
  });
  try {
    const r = await engine.router.call('index.reindex', { case_id: target.id, all: args.values.all === true });
    const before = await engine.router.call('index.vectors', { case_id: target.id });
    const vectors = await catchUpVectors(engine, target.id, io, json);
    if (json) io.out(wireJson({ ...r, vectors }));
    else if (r.versions === 0) io.out(`"${printable(target.name)}" is up to date (${r.current} documents).`);
    else
      io.out(
        `Re-indexed ${r.versions} document${r.versions === 1 ? '' : 's'} of "${printable(target.name)}" (${r.chunks} passages)${r.current ? `; ${r.current} were up to date` : ''}.`,
      );
    if (vectors.state === 'failed') {
      io.err(`casefile: making the passages searchable by meaning stopped: ${vectors.problem ?? 'unknown error'}`);
      return 1;
    }
    if (!json && before.state === 'needed' && vectors.state === 'done')
      io.out(`Made ${vectors.total - before.embedded} passages searchable by meaning with ${vectors.model_id}.`);
    return 0;
  } finally {
    off();
  }
}
