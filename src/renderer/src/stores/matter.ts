import { create } from 'zustand';
import type { MatterImport } from '../../../shared/contract/index';
import { api } from '../api/index';
import { useCases } from './cases';

/** A move under way: which way, and the bytes of the case's files done so far (from `cases.transfer`). */
export interface MatterTransfer {
  direction: 'export' | 'import';
  done: number;
  total: number;
}

interface MatterState {
  transfer: MatterTransfer | null;
  /**
   * Export a case as one matter file: in the desktop app to a file chosen in the save dialog, in
   * serve mode as a download. Resolves with where it went, or null when the dialog was cancelled.
   */
  exportCase(caseId: string, name: string, passphrase?: string): Promise<string | null>;
  /**
   * Import a matter file: in the desktop app one chosen in the open dialog (`file` absent), in serve
   * mode the `file` picked in the page, uploaded first. Null when the dialog was cancelled.
   */
  importMatter(file: File | null, passphrase?: string): Promise<MatterImport | null>;
}

/** Follows `cases.transfer` while `run` works; the transfer is cleared after, whatever the outcome. */
async function tracked<T>(direction: MatterTransfer['direction'], run: () => Promise<T>): Promise<T> {
  useMatter.setState({ transfer: { direction, done: 0, total: 0 } });
  const off = api.on('cases.transfer', (e) => {
    if (e.direction === direction)
      useMatter.setState({ transfer: { direction, done: e.done_bytes, total: e.total_bytes } });
  });
  try {
    return await run();
  } finally {
    off();
    useMatter.setState({ transfer: null });
  }
}

export const useMatter = create<MatterState>(() => ({
  transfer: null,
  async exportCase(caseId, name, passphrase) {
    const secret = passphrase ? { passphrase } : {};
    if (api.downloadMatter) {
      const download = api.downloadMatter;
      await tracked('export', () => download({ case_id: caseId, ...secret }));
      return 'your downloads';
    }
    const out = (await api.chooseMatter?.({ purpose: 'export', name })) ?? null;
    if (!out) return null;
    const done = await tracked('export', () => api.call('cases.export', { case_id: caseId, out, ...secret }));
    return done.path;
  },
  async importMatter(file, passphrase) {
    let path: string | null;
    if (file) [path = null] = await api.stage({ top: [file], files: async () => [{ file, relPath: file.name }] });
    else path = (await api.chooseMatter?.({ purpose: 'import' })) ?? null;
    if (!path) return null;
    const from = path;
    const done = await tracked('import', () =>
      api.call('cases.import', { path: from, ...(passphrase ? { passphrase } : {}) }),
    );
    await useCases.getState().load();
    return done;
  },
}));
