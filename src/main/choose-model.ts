/**
 * The system's open dialog, asked for by the renderer through the preload bridge: Settings →
 * Models → "Choose a model file…" (`{ kind: 'file' | 'folder' }`), and Settings → "Folders …
 * follows" → "Choose a folder to follow…" (`{ purpose: 'follow' }`). Main checks what the page sent
 * (nothing else is accepted, and the page sets no dialog text) and answers with the chosen path or
 * null; what is done with it (`models.import`, `cases.setWatch`) is validated there.
 */
import { z } from 'zod';
import { CasefileError } from '../shared/errors';

const ChooseModel = z
  .object({ kind: z.enum(['file', 'folder'], { error: 'kind must be "file" or "folder"' }) })
  .strict();

/** What the dialog needs: Electron's `dialog.showOpenDialog`, narrowed so a test can pass a fake. */
export type OpenDialog = (options: {
  title: string;
  buttonLabel: string;
  properties: Array<'openFile' | 'openDirectory'>;
  filters?: Array<{ name: string; extensions: string[] }>;
}) => Promise<{ canceled: boolean; filePaths: string[] }>;

export async function chooseModelPath(input: unknown, showOpenDialog: OpenDialog): Promise<{ path: string | null }> {
  const parsed = ChooseModel.safeParse(input);
  if (!parsed.success)
    throw new CasefileError('invalid_input', 'Choosing a model needs { kind: "file" } or { kind: "folder" }.');
  const file = parsed.data.kind === 'file';
  const result = await showOpenDialog({
    title: file ? 'Choose a model file (.gguf)' : 'Choose a model folder',
    buttonLabel: 'Import',
    properties: [file ? 'openFile' : 'openDirectory'],
    ...(file ? { filters: [{ name: 'GGUF models', extensions: ['gguf'] }] } : {}),
  });
  const chosen = result.canceled ? undefined : result.filePaths[0];
  return { path: chosen ?? null };
}

const ChooseFolder = z.object({ purpose: z.literal('follow') }).strict();

/** A folder for the open case to follow: a folder dialog; null when cancelled. */
export async function chooseFolderPath(input: unknown, showOpenDialog: OpenDialog): Promise<{ path: string | null }> {
  if (!ChooseFolder.safeParse(input).success)
    throw new CasefileError('invalid_input', 'Choosing a folder needs { purpose: "follow" }.');
  const result = await showOpenDialog({
    title: 'Choose a folder for this case to follow',
    buttonLabel: 'Follow',
    properties: ['openDirectory'],
  });
  const chosen = result.canceled ? undefined : result.filePaths[0];
  return { path: chosen ?? null };
}
