/** The system's open dialogs in the desktop app (a model to import, a folder to follow): main checks what the page asks for, and answers the chosen path or null. */
import { describe, expect, it } from 'vitest';
import { chooseFolderPath, chooseModelPath, type OpenDialog } from '../../src/main/choose-model';

describe('choose a model (Electron main)', () => {
  it('a file: a .gguf dialog; a folder: a folder dialog; cancelled: null', async () => {
    const asked: Parameters<OpenDialog>[0][] = [];
    const dialog =
      (answer: { canceled: boolean; filePaths: string[] }): OpenDialog =>
      async (options) => {
        asked.push(options);
        return answer;
      };
    expect(
      await chooseModelPath({ kind: 'file' }, dialog({ canceled: false, filePaths: ['/models/qwen.gguf'] })),
    ).toEqual({ path: '/models/qwen.gguf' });
    expect(asked[0]).toMatchObject({ properties: ['openFile'], filters: [{ extensions: ['gguf'] }] });
    expect(
      await chooseModelPath({ kind: 'folder' }, dialog({ canceled: false, filePaths: ['/models/minilm'] })),
    ).toEqual({ path: '/models/minilm' });
    expect(asked[1]).toMatchObject({ properties: ['openDirectory'] });
    expect(await chooseModelPath({ kind: 'file' }, dialog({ canceled: true, filePaths: [] }))).toEqual({ path: null });
  });

  it('refuses anything else the page sends, without opening a dialog', async () => {
    let opened = 0;
    const dialog: OpenDialog = async () => {
      opened++;
      return { canceled: true, filePaths: [] };
    };
    for (const bad of [undefined, null, 'file', { kind: 'anything' }, { kind: 'file', path: '/etc/passwd' }]) {
      await expect(chooseModelPath(bad, dialog)).rejects.toThrow('Choosing a model needs');
    }
    expect(opened).toBe(0);
  });
});

describe('choose a folder to follow (Electron main)', () => {
  it('a folder dialog; the chosen folder, or null when cancelled', async () => {
    const asked: Parameters<OpenDialog>[0][] = [];
    const dialog =
      (answer: { canceled: boolean; filePaths: string[] }): OpenDialog =>
      async (options) => {
        asked.push(options);
        return answer;
      };
    expect(
      await chooseFolderPath({ purpose: 'follow' }, dialog({ canceled: false, filePaths: ['/Users/me/Cases/Smith'] })),
    ).toEqual({ path: '/Users/me/Cases/Smith' });
    expect(asked[0]).toMatchObject({ properties: ['openDirectory'], buttonLabel: 'Follow' });
    expect(asked[0]).not.toHaveProperty('filters');
    expect(await chooseFolderPath({ purpose: 'follow' }, dialog({ canceled: true, filePaths: [] }))).toEqual({
      path: null,
    });
  });

  it('refuses anything else the page sends, without opening a dialog', async () => {
    let opened = 0;
    const dialog: OpenDialog = async () => {
      opened++;
      return { canceled: true, filePaths: [] };
    };
    for (const bad of [
      undefined,
      {},
      { purpose: 'import' },
      { purpose: 'follow', defaultPath: '/etc' },
      { kind: 'folder' },
    ]) {
      await expect(chooseFolderPath(bad, dialog)).rejects.toThrow('Choosing a folder needs');
    }
    expect(opened).toBe(0);
  });
});
