/**
 * The desktop app follows the folders dropped into a case (#16): after `ingest.start` with a
 * folder among its paths, the folder is added to the case's followed folders, and following is
 * switched on when the case followed none before (a case the user switched off stays off).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../core/engine';

/** How the run `started` (ingest.start's answer) ended, once it has: at once for a finished run. */
function runEnded(engine: Pick<Engine, 'events'>, started: unknown): Promise<string> {
  const handle = started as { job_id?: unknown; state?: unknown } | null;
  if (handle?.state !== 'running' || typeof handle.job_id !== 'string')
    return Promise.resolve(String(handle?.state ?? 'done'));
  return new Promise((resolve) => {
    const off = engine.events.on('ingest.progress', (p) => {
      if (p.job_id !== handle.job_id || p.state === 'running') return;
      off();
      resolve(p.state);
    });
  });
}

/**
 * After `ingest.start` answered `started`: once that run has ended (so the first catch-up finds the
 * case holding the folder as it is, and reads nothing again), the dropped folders are followed.
 */
export async function followDroppedFolders(
  engine: Pick<Engine, 'router' | 'events'>,
  input: unknown,
  started?: unknown,
): Promise<void> {
  const { case_id: caseId, paths } = (input ?? {}) as { case_id?: unknown; paths?: unknown };
  if (typeof caseId !== 'string' || !Array.isArray(paths)) return;
  const folders: string[] = [];
  for (const p of paths) {
    if (typeof p !== 'string' || !path.isAbsolute(p)) continue;
    if ((await fs.stat(p).catch(() => null))?.isDirectory()) folders.push(path.resolve(p));
  }
  if (folders.length === 0) return;
  // A drop the user cancelled is not followed.
  if ((await runEnded(engine, started)) === 'cancelled') return;
  const summary = await engine.router.call('cases.get', { case_id: caseId });
  const known = summary.watch.folders;
  const added = folders.filter((f) => !known.includes(f));
  if (added.length === 0) return;
  await engine.router.call('cases.setWatch', {
    case_id: caseId,
    folders: [...known, ...added],
    enabled: known.length === 0 ? true : summary.watch.enabled,
  });
}
