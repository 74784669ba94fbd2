import type { CasefileBridge, Result } from '../../../shared/bridge';
import type { OpName } from '../../../shared/contract/index';
import { ApiError } from './errors';
import type { Api } from './types';

/** The Electron transport: `window.casefile`, exposed by the preload. */
export function ipcApi(bridge: CasefileBridge): Api {
  return {
    async call(name, input) {
      const fn = bridge[name as OpName] as unknown as ((i: unknown) => Promise<Result<unknown>>) | undefined;
      if (typeof fn !== 'function') {
        throw new ApiError({
          code: 'unavailable',
          message: `Operation "${name}" is not available in this version of the app.`,
        });
      }
      const result = await fn(input);
      if (result.ok) return result.value as never;
      throw new ApiError(result.error);
    },
    on(event, listener) {
      return bridge.on(event, listener);
    },
    async openOriginal(input) {
      const result = await bridge.openOriginal(input);
      if (!result.ok) throw new ApiError(result.error);
    },
    async chooseModel(kind) {
      const result = await bridge.chooseModel({ kind });
      if (!result.ok) throw new ApiError(result.error);
      return result.value.path;
    },
    async chooseFolder() {
      const result = await bridge.chooseFolder({ purpose: 'follow' });
      if (!result.ok) throw new ApiError(result.error);
      return result.value.path;
    },
    async chooseMatter(input) {
      const result = await bridge.chooseMatter(input);
      if (!result.ok) throw new ApiError(result.error);
      return result.value.path;
    },
    onResync() {
      // IPC events are not lost while the window lives: nothing to resync.
      return () => {};
    },
    async stage(items) {
      const paths: string[] = [];
      for (const file of items.top) {
        const p = bridge.pathForFile(file);
        if (p) paths.push(p);
      }
      if (items.top.length === 0) {
        // A folder chosen with <input webkitdirectory>: its path is a file's path minus the part inside it.
        for (const { file, relPath } of await items.files()) {
          const full = bridge.pathForFile(file);
          const inside = relPath.split('/').slice(1).join('/');
          if (!full || !inside || !full.replace(/\\/g, '/').endsWith(inside)) continue;
          const root = full.slice(0, full.length - inside.length).replace(/[\\/]+$/, '');
          if (!paths.includes(root)) paths.push(root);
        }
      }
      if (paths.length === 0) {
        throw new ApiError({
          code: 'invalid_input',
          message: 'Those items have no location on disk; drop files or folders from your file manager.',
        });
      }
      return paths;
    },
  };
}
