import type { HandlerMap } from '../router/router';
import type { IngestPorts } from './ports';
import { IngestService, type IngestOptions } from './service';

/**
 * Ingest for an engine (loaded on first use, see `Engine.ingestService`), resuming interrupted
 * ingests when asked. Its owner closes it and calls `beforeCaseDelete`.
 */
export function createIngest(ports: IngestPorts, options: IngestOptions = {}): IngestService {
  const service = new IngestService(ports, options);
  if (options.autoResume) {
    // After open() returns; a failure to resume is reported per case by the next ingest.
    setImmediate(() => {
      // Then cases indexed before the current chunking are upgraded from their stored text.
      service
        .resume()
        .catch((err: unknown) =>
          console.error(`casefile: resuming interrupted ingests failed: ${(err as Error).message}`),
        )
        .then(() => service.upgradeAll())
        .catch((err: unknown) => console.error(`casefile: upgrading case indexes failed: ${(err as Error).message}`));
    });
  }
  return service;
}

export function ingestHandlers(service: IngestService, ports: Pick<IngestPorts, 'cases'>): HandlerMap {
  return {
    'ingest.start': async ({ case_id: caseId, paths, wait, searchable }, { signal }) =>
      wait === false
        ? service.startDetached(caseId, paths, { searchableOnly: searchable === true })
        : service.start(caseId, paths, { signal, searchableOnly: searchable === true }),
    'ingest.cancel': async ({ case_id: caseId }) => ({ case_id: caseId, cancelled: service.cancel(caseId) }),
    'ingest.resume': async ({ case_id: caseId }) => ({ resumed: await service.resume(caseId) }),
    'ingest.status': async ({ case_id: caseId }) => ({
      progress: service.status(caseId),
      pending: await service.pendingCount(caseId),
    }),
    'index.reindex': async ({ case_id: caseId, all }, { signal }) =>
      service.reindex(caseId, { all: all === true, signal }),
    'index.vectors': async ({ case_id: caseId }) => {
      await ports.cases.readMeta(caseId); // not_found for a case that does not exist
      return service.vectors.status(caseId);
    },
    'index.catchUp': async ({ case_id: caseId }) => {
      await ports.cases.readMeta(caseId);
      return service.vectors.request(caseId);
    },
    'files.list': async ({ case_id: caseId }) => {
      await ports.cases.readMeta(caseId); // not_found for a case that does not exist (not an empty list)
      return { files: await service.listFiles(caseId) };
    },
    'files.remove': async ({ case_id: caseId, file_id: fileId, version }) => ({
      removed: await service.removeFile(caseId, fileId, version),
    }),
    'files.setBates': async ({ case_id: caseId, file_id: fileId, prefix }) => ({
      file: await service.setBates(caseId, fileId, prefix),
    }),
    'files.setType': async ({ case_id: caseId, file_id: fileId, type }) => ({
      file: await service.setDocType(caseId, fileId, type),
    }),
    'files.retry': async ({ case_id: caseId, file_id: fileId, wait }, { signal }) =>
      service.retry(caseId, fileId, { wait: wait !== false, signal }),
    'files.unlock': async ({ case_id: caseId, file_id: fileId, password, wait }, { signal }) =>
      service.unlock(caseId, fileId, password, { wait: wait !== false, signal }),
    'files.read': async ({ case_id: caseId, file_id: fileId, version }) => service.read(caseId, fileId, version),
  };
}
