/**
 * What the lawyer says of the chronology's events: a mark (key, disputed, irrelevant) and a note,
 * per case (`<case>/chronology.json`), keyed by the event's place in its document version
 * (`<fileId>@v<version>:<start>-<end>`), so a mark stays on its sentence while the document is
 * unchanged. Writes are atomic and serialized per case within this process.
 */
import path from 'node:path';
import { KeyedQueue } from '../util/concurrency';
import { readJson, writeJsonAtomic } from '../util/fs';

export type EventMarkName = 'key' | 'disputed' | 'irrelevant';

export interface EventMark {
  mark?: EventMarkName;
  note?: string;
  updated: string;
}

export type EventMarks = Record<string, EventMark>;

const FILE = 'chronology.json';
const queue = new KeyedQueue<string>();

/** The key of an event: its file version and character range. */
export const eventKey = (fileId: string, version: number, start: number, end: number) =>
  `${fileId}@v${version}:${start}-${end}`;

export async function readMarks(caseDir: string): Promise<EventMarks> {
  const raw = (await readJson(path.join(caseDir, FILE)).catch(() => undefined)) as { marks?: EventMarks } | undefined;
  return raw?.marks && typeof raw.marks === 'object' ? raw.marks : {};
}

/** Set (or clear, with mark null and no note) what is said of one event; returns it as stored. */
export async function writeMark(
  caseDir: string,
  key: string,
  change: { mark?: EventMarkName | null; note?: string },
): Promise<EventMark | null> {
  return queue.run(caseDir, async () => {
    const marks = await readMarks(caseDir);
    const before = marks[key];
    const mark = change.mark === undefined ? before?.mark : (change.mark ?? undefined);
    const note = (change.note === undefined ? before?.note : change.note.trim()) || undefined;
    const next: EventMark | null =
      mark || note ? { ...(mark ? { mark } : {}), ...(note ? { note } : {}), updated: new Date().toISOString() } : null;
    if (next) marks[key] = next;
    else delete marks[key];
    await writeJsonAtomic(path.join(caseDir, FILE), { marks });
    return next;
  });
}
