/**
 * Finishing interrupted work: job files left by a killed process are run again (their paths are
 * walked again; finished files come out unchanged), and versions left queued or cancelled are
 * finished.
 */
import type { IngestRunResult } from '../../shared/contract/ingest';
import { CasefileError } from '../../shared/errors';
import { ownedElsewhere } from './case-lock';
import { mergeWalks, type JobRecord, type JobStore } from './jobs';
import type { IngestPorts } from './ports';
import { CaseStore } from '../documents/index';
import { PENDING_STATUSES } from '../domain/index';

/** File versions of a case waiting to be finished (queued by an interrupted run, or cancelled). */
export async function pendingCount(cases: IngestPorts['cases'], caseId: string): Promise<number> {
  const m = await new CaseStore(cases.caseDir(caseId)).readManifest();
  return m.files.reduce(
    (n, f) => n + f.versions.filter((v) => PENDING_STATUSES.includes(v.status) || v.status === 'cancelled').length,
    0,
  );
}

export interface ResumeDeps {
  cases: IngestPorts['cases'];
  jobs: JobStore;
  /** Is this job queued or running in this process? */
  isActiveJob: (jobId: string) => boolean;
  /** Queue a run of the case that also finishes cancelled versions, as `existing` (a job to take over) where given. */
  enqueueResume: (
    caseId: string,
    paths: string[],
    existing: JobRecord | undefined,
  ) => Promise<{ done: Promise<IngestRunResult> }>;
}

/**
 * Resume the case (or, with no caseId, every case with interrupted jobs or unfinished versions),
 * one case after another. The jobs of a case are merged into one run; those of a deleted case are
 * dropped. Without a caseId, a case another process is ingesting right now is left to it.
 */
export async function resumeInterrupted(deps: ResumeDeps, caseId?: string): Promise<IngestRunResult[]> {
  const { cases, jobs: store } = deps;
  const jobs = (await store.list(caseId)).filter((j) => !deps.isActiveJob(j.id) && !ownedElsewhere(j));
  const caseIds = new Set<string>();
  if (caseId) caseIds.add(caseId);
  else {
    for (const j of jobs) caseIds.add(j.caseId);
    for (const c of await cases.list()) if ((await pendingCount(cases, c.id)) > 0) caseIds.add(c.id);
  }
  const results: IngestRunResult[] = [];
  for (const id of caseIds) {
    const own = jobs.filter((j) => j.caseId === id);
    const exists = await cases.readMeta(id).then(
      () => true,
      () => false,
    );
    if (!exists) {
      for (const j of own) await store.remove(j.id);
      continue;
    }
    const [first, ...rest] = own;
    const walk = mergeWalks(own);
    for (const j of rest) await store.remove(j.id);
    const { done } = await deps.enqueueResume(
      id,
      walk.paths,
      first ? { ...first, paths: walk.paths, only: walk.only } : undefined,
    );
    try {
      results.push(await done);
    } catch (err) {
      // A case another process is ingesting right now is left to that process.
      if (!(err instanceof CasefileError && err.code === 'conflict') || caseId) throw err;
    }
  }
  return results;
}
