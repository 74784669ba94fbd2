/** The desktop app's dialogs for moving a matter: main checks what the page asks for, and answers the chosen path or null. */
import { describe, expect, it } from 'vitest';
import { chooseMatterPath, matterFileName, type SaveDialog } from '../../src/main/choose-matter';
import type { OpenDialog } from '../../src/main/choose-model';

describe('choose a matter file (Electron main)', () => {
  it('export: a save dialog suggesting the case’s name; import: an open dialog for .casefile; cancelled: null', async () => {
    const saved: Parameters<SaveDialog>[0][] = [];
    const opened: Parameters<OpenDialog>[0][] = [];
    const dialogs = (answer: { canceled: boolean; path?: string }) => ({
      save: (async (options) => {
        saved.push(options);
        return { canceled: answer.canceled, ...(answer.path ? { filePath: answer.path } : {}) };
      }) satisfies SaveDialog,
      open: (async (options) => {
        opened.push(options);
        return { canceled: answer.canceled, filePaths: answer.path ? [answer.path] : [] };
      }) satisfies OpenDialog,
    });
    expect(
      await chooseMatterPath(
        { purpose: 'export', name: 'Smith v. Jones / 2024' },
        dialogs({ canceled: false, path: '/m/s.casefile' }),
      ),
    ).toEqual({ path: '/m/s.casefile' });
    expect(saved[0]).toMatchObject({
      defaultPath: 'Smith v. Jones   2024.casefile',
      filters: [{ extensions: ['casefile'] }],
    });
    expect(await chooseMatterPath({ purpose: 'import' }, dialogs({ canceled: false, path: '/m/in.casefile' }))).toEqual(
      { path: '/m/in.casefile' },
    );
    expect(opened[0]).toMatchObject({ properties: ['openFile'], filters: [{ extensions: ['casefile'] }] });
    expect(await chooseMatterPath({ purpose: 'import' }, dialogs({ canceled: true }))).toEqual({ path: null });
    expect(await chooseMatterPath({ purpose: 'export', name: 'X' }, dialogs({ canceled: true }))).toEqual({
      path: null,
    });
  });

  it('refuses anything else the page sends, without opening a dialog', async () => {
    let shown = 0;
    const dialogs = {
      save: (async () => {
        shown++;
        return { canceled: true };
      }) satisfies SaveDialog,
      open: (async () => {
        shown++;
        return { canceled: true, filePaths: [] };
      }) satisfies OpenDialog,
    };
    for (const bad of [undefined, 'import', { purpose: 'export' }, { purpose: 'import', path: '/etc/passwd' }]) {
      await expect(chooseMatterPath(bad, dialogs)).rejects.toThrow('Choosing a matter file needs');
    }
    expect(shown).toBe(0);
    expect(matterFileName('  ')).toBe('matter.casefile');
  });
});
