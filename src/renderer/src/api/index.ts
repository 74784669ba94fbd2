import type { CasefileBridge } from '../../../shared/bridge';
import { downloadMatter, httpApi } from './http';
import { ipcApi } from './ipc';
import type { Api } from './types';

export { ApiError, errorMessage } from './errors';
export type { Api } from './types';

function pickTransport(): Api {
  const bridge = (globalThis as { casefile?: CasefileBridge }).casefile;
  return bridge ? ipcApi(bridge) : { ...httpApi(), downloadMatter };
}

/** The one api client of the renderer, chosen once: Electron IPC when the preload is present, else HTTP. */
export const api: Api = pickTransport();
