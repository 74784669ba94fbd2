import type { CaseDocuments } from '../documents/index';
import { dateSettingsOf } from '../cases/index';
import type { OpenCase } from '../ports';
import { CasefileError } from '../../shared/errors';
import type { DocumentInfo, DocumentSource } from './document-source';
import { placeFacts } from '../text/index';
import { readMarks } from './chronology-marks';

/** Ingest's manifest and stored texts as a DocumentSource (exact text, exact page starts, every status). */
export function ingestDocumentSource(
  docs: CaseDocuments,
  meta?: () => Promise<{ settings: Record<string, unknown> }>,
): DocumentSource {
  return {
    async listFiles() {
      const out: DocumentInfo[] = [];
      const files = await docs.listFiles();
      const names = new Map(files.map((f) => [f.id, f.name]));
      const held = new Map<string, number>();
      for (const f of files) if (f.parent && f.versions.length) held.set(f.parent, (held.get(f.parent) ?? 0) + 1);
      for (const f of files) {
        const latest = f.versions[f.versions.length - 1];
        if (!latest) continue;
        const parent = f.parent ? names.get(f.parent) : undefined;
        out.push({
          id: f.id,
          name: f.name,
          version: latest.version,
          versions: f.versions.map((v) => v.version),
          type: f.doc_type_override ?? latest.doc_type,
          pages: latest.pages,
          status: latest.status,
          reason: latest.reason,
          date: latest.doc_date,
          ...(latest.email ? { email: { from: latest.email.from, subject: latest.email.subject } } : {}),
          ...(parent ? { parent } : {}),
          ...(held.get(f.id) ? { children: held.get(f.id) } : {}),
        });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
    async readText(fileId, version) {
      return unlessUnreadable(async () => {
        const [text, pages] = await Promise.all([docs.getText(fileId, version), docs.getPages(fileId, version)]);
        const ocr = pages.pages.filter((p) => p.ocr);
        return {
          text,
          pageStarts: pages.pages.length ? pages.pages.map((p) => p.start) : [0],
          ...(ocr.length ? { ocrPages: new Map(ocr.map((p) => [p.page, p.ocr!.confidence])) } : {}),
          ...placeFacts(pages),
        };
      });
    },
    async readSections(fileId, version) {
      return (await unlessUnreadable(() => docs.getSections(fileId, version))) ?? [];
    },
    async readMarks() {
      return readMarks(docs.store.caseDir);
    },
    async readEvents(fileId, version) {
      const dayFirst = meta ? dateSettingsOf((await meta()).settings).dayFirst : false;
      return unlessUnreadable(() => docs.getEvents(fileId, version, { dayFirst }));
    },
    async readProfile(fileId, version) {
      return unlessUnreadable(async () => (await docs.getStructure(fileId, version)).profile);
    },
  };
}

/** `read()`'s value, or null when the version has no readable text or is gone. */
async function unlessUnreadable<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof CasefileError && (err.code === 'unavailable' || err.code === 'not_found')) return null;
    throw err;
  }
}

/** The documents of one case for the tools: ingest's manifest and stored texts. */
export function caseDocumentSource(open: Pick<OpenCase, 'documents' | 'meta'>): DocumentSource {
  return ingestDocumentSource(open.documents, () => open.meta());
}
