/**
 * A question limited to documents the user chose ("Ask about these"): the case's documents seen
 * through that choice, so every tool that lists, searches or reads them sees only those files.
 */
import { CasefileError } from '../../shared/errors';
import type { DocumentInfo, DocumentSource } from './document-source';

/** Names listed in the line before "and N more". */
const NAMED = 10;

/** The documents of `source` whose ids are in `ids` (every other read is passed through: the tools check ids on listFiles). */
export function scopedSource(source: DocumentSource, ids: ReadonlySet<string>): DocumentSource {
  return {
    listFiles: async () => (await source.listFiles()).filter((f) => ids.has(f.id)),
    readText: (fileId, version) => (ids.has(fileId) ? source.readText(fileId, version) : Promise.resolve(null)),
    readSections: (fileId, version) => (ids.has(fileId) ? source.readSections(fileId, version) : Promise.resolve([])),
    readProfile: (fileId, version) => (ids.has(fileId) ? source.readProfile(fileId, version) : Promise.resolve(null)),
    readEvents: (fileId, version) => (ids.has(fileId) ? source.readEvents(fileId, version) : Promise.resolve(null)),
    readMarks: () => source.readMarks(),
  };
}

/**
 * The files of `all` that `ids` name, in the order asked (duplicates once); an id that is not a
 * file of the case is refused in plain words.
 */
export function chosenFiles(all: readonly DocumentInfo[], ids: readonly string[]): DocumentInfo[] {
  const byId = new Map(all.map((f) => [f.id, f]));
  const unique = [...new Set(ids)];
  const unknown = unique.filter((id) => !byId.has(id));
  if (unknown.length) {
    const shown = unknown
      .slice(0, 5)
      .map((id) => `"${id}"`)
      .join(', ');
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
    const message =
      unknown.length === 1
        ? `One of the documents you chose is not in this case (it may have been removed): ${shown}. Choose the documents again.`
        : `${unknown.length} of the documents you chose are not in this case (they may have been removed): ${shown}${more}. Choose the documents again.`;
    throw new CasefileError('invalid_input', message, [{ field: 'file_ids', message }]);
  }
  return unique.map((id) => byId.get(id)!);
}

/** "Limited to 2 documents you chose: a.pdf, b.pdf" (at most NAMED names, then "and N more"). */
export function limitLine(files: readonly { name: string }[]): string {
  const names = files.slice(0, NAMED).map((f) => f.name);
  const more = files.length > NAMED ? ` and ${files.length - NAMED} more` : '';
  const what = files.length === 1 ? 'the 1 document you chose' : `${files.length} documents you chose`;
  return `Limited to ${what}: ${names.join(', ')}${more}`;
}
