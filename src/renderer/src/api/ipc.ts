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
        throw new ApiError({ code: 'unavailable', message: `Operation "${name}" is not available in this version of the app.` });
      }
      const result = await fn(input);
      if (result.ok) return result.value as never;
      throw new ApiError(result.error);
    },
    on(event, listener) {
      return bridge.on(event, listener);
    },
    async stage(items) {
      const paths: string[] = [];
      for (const file of items.top) {
        const p = bridge.pathForFile(file);
        if (p) paths.push(p);
      }
      if (paths.length === 0) {
        throw new ApiError({ code: 'invalid_input', message: 'Those items have no location on disk; drop files or folders from your file manager.' });
      }
      return paths;
    },
  };
}
