/**
 * The system's dialogs for moving a matter in the desktop app (Settings → Move a matter): where to
 * save a case's matter file (`{ purpose: 'export', name }`, the case's name as the suggested file
 * name) and which matter file to import (`{ purpose: 'import' }`). Main checks what the page sent
 * and answers the chosen path or null; `cases.export` / `cases.import` check the rest.
 */
import { z } from 'zod';
import { CasefileError } from '../shared/errors';
import type { OpenDialog } from './choose-model';

/** Electron's `dialog.showSaveDialog`, narrowed so a test can pass a fake. */
export type SaveDialog = (options: {
  title: string;
  buttonLabel: string;
  defaultPath: string;
  filters: Array<{ name: string; extensions: string[] }>;
}) => Promise<{ canceled: boolean; filePath?: string }>;

const ChooseMatter = z.discriminatedUnion('purpose', [
  z.object({ purpose: z.literal('export'), name: z.string().min(1).max(200) }).strict(),
  z.object({ purpose: z.literal('import') }).strict(),
]);

const FILTERS = [{ name: 'Casefile matters', extensions: ['casefile'] }];

/** The suggested file name: the case's name without what a file system refuses. */
export function matterFileName(caseName: string): string {
  const base = caseName.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ').trim() || 'matter';
  return `${base}.casefile`;
}

export async function chooseMatterPath(
  input: unknown,
  dialogs: { open: OpenDialog; save: SaveDialog },
): Promise<{ path: string | null }> {
  const parsed = ChooseMatter.safeParse(input);
  if (!parsed.success)
    throw new CasefileError(
      'invalid_input',
      'Choosing a matter file needs { purpose: "export", name } or { purpose: "import" }.',
    );
  if (parsed.data.purpose === 'export') {
    const saved = await dialogs.save({
      title: 'Export this matter as one file',
      buttonLabel: 'Export',
      defaultPath: matterFileName(parsed.data.name),
      filters: FILTERS,
    });
    return { path: saved.canceled || !saved.filePath ? null : saved.filePath };
  }
  const opened = await dialogs.open({
    title: 'Choose a matter file to import',
    buttonLabel: 'Import',
    properties: ['openFile'],
    filters: FILTERS,
  });
  return { path: opened.canceled ? null : (opened.filePaths[0] ?? null) };
}
