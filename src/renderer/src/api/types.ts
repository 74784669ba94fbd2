import type { OpInput, OpName, OpOutput } from '../../../shared/contract/index';
import type { EngineEvents, EventName } from '../../../shared/events';

/** A file the user picked or dropped, with its path relative to the dropped folder. */
export interface PickedFile {
  file: File;
  /** e.g. `Smith v Jones/medical/report.pdf`; a loose file is just its name. */
  relPath: string;
}

/** Who is signed in to a firm server (`casefile serve --firm`); `firm` false: no accounts (Electron, or a single-token server). */
export interface SessionInfo {
  firm: boolean;
  user: { name: string; role: 'admin' | 'reviewer' } | null;
}

/**
 * Everything the UI may ask of the engine. Two implementations (Electron IPC and HTTP+SSE),
 * picked once at startup; components only ever see this interface.
 */
export interface Api {
  /** Call an operation; resolves with its output or throws an {@link ApiError}. */
  call<N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>>;
  /** Subscribe to an engine event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EngineEvents[E]) => void): () => void;
  /**
   * Called when the event stream (re)connects — events may have been missed before — so views
   * reload what they show. Returns the unsubscribe function.
   */
  onResync(listener: () => void): () => void;
  /**
   * Turn dropped / chosen items into paths the engine can read: in Electron the files' own paths,
   * in serve mode the folder they were uploaded to. `top` are the dropped entries themselves
   * (folders included), `files` every file below them.
   */
  /** Serve mode only: whether the server has accounts, and who is signed in. */
  session?(): Promise<SessionInfo>;
  /** Serve mode only: sign in to a firm server; throws an {@link ApiError} with a plain message when refused. */
  signIn?(user: string, password: string): Promise<SessionInfo>;
  /** Serve mode only: end this page's session on the server. */
  signOut?(): Promise<void>;
  /** Serve mode only: called when the server says the session has ended; returns the unsubscribe function. */
  onSignedOut?(listener: () => void): () => void;
  /** Electron only (absent in serve mode): open a file version in the system's default viewer. */
  openOriginal?(input: { case_id: string; file_id: string; version?: number }): Promise<void>;
  /** Electron only (absent in serve mode): the system's open dialog for a model; null when cancelled. */
  chooseModel?(kind: 'file' | 'folder'): Promise<string | null>;
  /** Electron only (absent in serve mode): the system's folder dialog for a folder to follow; null when cancelled. */
  chooseFolder?(): Promise<string | null>;
  /** Electron only (absent in serve mode): where to save a case's matter file, or which one to import; null when cancelled. */
  chooseMatter?(input: { purpose: 'export'; name: string } | { purpose: 'import' }): Promise<string | null>;
  /** Serve mode only (absent in Electron): export a case and download its matter file (`POST /api/export`). */
  downloadMatter?(input: { case_id: string; passphrase?: string }): Promise<void>;
  stage(
    items: { top: File[]; files: () => Promise<PickedFile[]> },
    onProgress?: (done: number, total: number) => void,
    signal?: AbortSignal,
  ): Promise<string[]>;
}
