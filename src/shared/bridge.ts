/**
 * The shape of `window.casefile` (Electron preload) — and of the renderer's HTTP client, so
 * components never know which transport they use. Every method resolves to a {@link Result}
 * instead of rejecting, because errors do not survive contextBridge/IPC with their fields.
 */
import type { OpInput, OpName, OpOutput } from './contract/index';
import type { ApiErrorShape } from './errors';
import type { EngineEvents, EventName } from './events';

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiErrorShape };

export type BridgeOps = { [N in OpName]: (input: OpInput<N>) => Promise<Result<OpOutput<N>>> };

export interface BridgeExtras {
  /** Subscribe to an engine event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EngineEvents[E]) => void): () => void;
  /** Electron only: the filesystem path of a dropped File (webUtils.getPathForFile). */
  pathForFile(file: unknown): string;
  /** Electron only: open a file's original (one version) in the system's default viewer. */
  openOriginal(input: OpenOriginalInput): Promise<Result<{ opened: true }>>;
  /** Electron only: the system's open dialog for a model to import (a .gguf file, or a model folder); `path` is null when cancelled. */
  chooseModel(input: ChooseModelInput): Promise<Result<{ path: string | null }>>;
  /** Electron only: the system's folder dialog for a folder the case should follow; `path` is null when cancelled. */
  chooseFolder(input: ChooseFolderInput): Promise<Result<{ path: string | null }>>;
  /** Electron only: where to save a case's matter file (`export`), or which one to import (`import`); `path` is null when cancelled. */
  chooseMatter(input: ChooseMatterInput): Promise<Result<{ path: string | null }>>;
}

/** `export`: a save dialog suggesting `<name>.casefile`; `import`: an open dialog for a .casefile. */
export type ChooseMatterInput = { purpose: 'export'; name: string } | { purpose: 'import' };

export interface ChooseFolderInput {
  /** `follow`: a folder for the open case to follow (Settings → "Folders … follows"). */
  purpose: 'follow';
}

export interface ChooseModelInput {
  /** `file`: a .gguf chat model; `folder`: a transformers.js model folder (embedding or reranker). */
  kind: 'file' | 'folder';
}

export interface OpenOriginalInput {
  case_id: string;
  file_id: string;
  version?: number;
}

export type CasefileBridge = BridgeOps & BridgeExtras;

/** Keys of the bridge object besides the operations (checked by the preload test). */
export const bridgeExtraKeys = [
  'on',
  'pathForFile',
  'openOriginal',
  'chooseModel',
  'chooseFolder',
  'chooseMatter',
] as const satisfies readonly (keyof BridgeExtras)[];

/** IPC channel names. The main process handles exactly these. */
export const IPC_INVOKE = 'casefile:invoke';
export const IPC_EVENT = 'casefile:event';
export const IPC_OPEN_ORIGINAL = 'casefile:open-original';
export const IPC_CHOOSE_MODEL = 'casefile:choose-model';
export const IPC_CHOOSE_FOLDER = 'casefile:choose-folder';
export const IPC_CHOOSE_MATTER = 'casefile:choose-matter';
