import { promises as fs } from 'node:fs';
import type { EventBus } from '../bus';
import type { HandlerMap } from '../router/router';
import { CasefileError } from '../../shared/errors';
import { installedLanguages } from '../ocr/languages';
import type { CaseRegistry } from './registry';
import { detectCase } from './detect';
import type { CaseDigest } from './digest';

/** What the case operations need: the registry, events, and the stop of everything a case holds before it goes. */
export interface CasePorts {
  readonly version: string;
  readonly home: string;
  readonly cases: CaseRegistry;
  readonly events: Pick<EventBus, 'emit'>;
  /** Whether the engine reads scanned pages by OCR at all. */
  readonly ocr: boolean;
  beforeCaseDelete(caseId: string): Promise<void>;
  /** The case's digest as stored, made first when it has none yet (a case ingested before digests). */
  caseDigest(caseId: string): Promise<CaseDigest | undefined>;
}

/** A folder newly followed must be there (one followed already may be away for now: a drive unplugged). */
async function refuseMissingFolders(folders: string[], followed: string[]): Promise<void> {
  for (const [i, folder] of folders.entries()) {
    if (followed.includes(folder)) continue;
    const st = await fs.stat(folder).catch(() => null);
    if (st?.isDirectory()) continue;
    const message = st
      ? `“${folder}” is a file, not a folder. Choose the folder that holds the case’s files.`
      : `There is no folder at “${folder}”. Check the path (copy it from your file manager), or connect the drive it is on.`;
    throw new CasefileError('invalid_input', message, [{ field: `folders.${i}`, message }]);
  }
}

export function caseHandlers(ports: CasePorts): HandlerMap {
  const { cases, events } = ports;
  return {
    'app.info': async () => ({
      name: 'casefile',
      version: ports.version,
      home: ports.home,
      ocr: { available: ports.ocr, languages: installedLanguages() },
    }),
    'cases.list': async ({ query }) => ({ cases: await cases.list(query) }),
    'cases.get': async ({ case_id: caseId }) => cases.get(caseId),
    'cases.create': async ({ name }) => {
      const created = await cases.create(name);
      events.emit('cases.changed', { case_id: created.id, kind: 'created' });
      return created;
    },
    'cases.rename': async ({ case_id: caseId, name }) => {
      const renamed = await cases.rename(caseId, name);
      events.emit('cases.changed', { case_id: caseId, kind: 'renamed' });
      return renamed;
    },
    'cases.setOcr': async ({ case_id: caseId, enabled, language }) => {
      if (language !== undefined && !installedLanguages().includes(language)) {
        const have = installedLanguages();
        throw new CasefileError(
          'invalid_input',
          `No OCR language "${language}" is installed${have.length ? ` (installed: ${have.join(', ')})` : ''}.`,
        );
      }
      const changed = await cases.setOcr(caseId, {
        ...(enabled !== undefined ? { enabled } : {}),
        ...(language ? { language } : {}),
      });
      events.emit('cases.changed', { case_id: caseId, kind: 'settings' });
      return changed;
    },
    'cases.setDateOrder': async ({ case_id: caseId, day_first: dayFirst }) => {
      const changed = await cases.setDateOrder(caseId, dayFirst);
      events.emit('cases.changed', { case_id: caseId, kind: 'settings' });
      return changed;
    },
    'cases.setWatch': async ({ case_id: caseId, enabled, folders }) => {
      if (enabled === true && !folders?.length && (await cases.get(caseId)).watch.folders.length === 0) {
        throw CasefileError.withRemedy('invalid_input', 'This case follows no folder yet.', {
          app: 'Add a folder to the case first (“Add folder…” in the documents pane).',
          cli: 'Follow one first: casefile watch <case> <folder>.',
        });
      }
      if (folders) await refuseMissingFolders(folders, (await cases.get(caseId)).watch.folders);
      const changed = await cases.setWatch(caseId, {
        ...(enabled !== undefined ? { enabled } : {}),
        ...(folders ? { folders: [...new Set(folders)] } : {}),
      });
      events.emit('cases.changed', { case_id: caseId, kind: 'settings' });
      return changed;
    },
    'cases.detect': async ({ question }, { visible }) => {
      const metas = (await cases.metas()).filter((m) => !visible || visible(m.id));
      const known = await Promise.all(
        metas.map(async (m) => ({
          id: m.id,
          name: m.name,
          created: m.created,
          digest: await ports.caseDigest(m.id).catch(() => undefined),
        })),
      );
      return detectCase(question, known);
    },
    'cases.delete': async ({ case_id: caseId }) => {
      await ports.beforeCaseDelete(caseId);
      await cases.delete(caseId);
      events.emit('cases.changed', { case_id: caseId, kind: 'deleted' });
      return { id: caseId, deleted: true as const };
    },
  };
}
