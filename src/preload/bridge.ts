/**
 * Builds the `window.casefile` object from the contract. Kept free of any `electron` import so
 * a test can check exactly what the renderer is given: one function per operation, `on`, and
 * `pathForFile` — nothing else, no Node surface.
 */
import type { BridgeOps, CasefileBridge, Result } from '../shared/bridge';
import {
  IPC_CHOOSE_FOLDER,
  IPC_CHOOSE_MATTER,
  IPC_CHOOSE_MODEL,
  IPC_EVENT,
  IPC_INVOKE,
  IPC_OPEN_ORIGINAL,
} from '../shared/bridge';
import { opNames, type OpName } from '../shared/contract/index';
import type { EventEnvelope } from '../shared/events';
import { isEventName } from '../shared/events';

/** The parts of Electron's ipcRenderer / webUtils the bridge uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}
export interface WebUtilsLike {
  getPathForFile(file: never): string;
}

export function buildBridge(ipc: IpcRendererLike, webUtils: WebUtilsLike): CasefileBridge {
  const ops = {} as Record<OpName, (input: unknown) => Promise<Result<unknown>>>;
  for (const name of opNames) {
    ops[name] = (input: unknown) => ipc.invoke(IPC_INVOKE, name, input) as Promise<Result<unknown>>;
  }
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let attached = false;
  const dispatch = (_event: unknown, envelope: unknown) => {
    const env = envelope as EventEnvelope;
    listeners.get(env?.name)?.forEach((cb) => cb(env.payload));
  };
  return {
    ...(ops as unknown as BridgeOps),
    on(event, listener) {
      if (!isEventName(event)) throw new Error(`Unknown event "${String(event)}"`);
      if (!attached) {
        ipc.on(IPC_EVENT, dispatch);
        attached = true;
      }
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: unknown) => void);
      listeners.set(event, set);
      return () => {
        set.delete(listener as (payload: unknown) => void);
      };
    },
    pathForFile(file) {
      return webUtils.getPathForFile(file as never);
    },
    openOriginal(input) {
      return ipc.invoke(IPC_OPEN_ORIGINAL, input) as Promise<Result<{ opened: true }>>;
    },
    chooseModel(input) {
      return ipc.invoke(IPC_CHOOSE_MODEL, input) as Promise<Result<{ path: string | null }>>;
    },
    chooseFolder(input) {
      return ipc.invoke(IPC_CHOOSE_FOLDER, input) as Promise<Result<{ path: string | null }>>;
    },
    chooseMatter(input) {
      return ipc.invoke(IPC_CHOOSE_MATTER, input) as Promise<Result<{ path: string | null }>>;
    },
  };
}
