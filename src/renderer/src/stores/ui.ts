import { create } from 'zustand';

export type View = 'workspace' | 'settings';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

export type DialogRequest =
  | { kind: 'create'; suggestedName?: string; then?: (caseId: string) => void }
  | { kind: 'rename'; caseId: string }
  | { kind: 'delete'; caseId: string }
  | { kind: 'removeFile'; caseId: string; fileId: string; name: string; versions: number }
  | { kind: 'deleteSession'; caseId: string; sessionId: string; title: string };

interface UiState {
  view: View;
  dialog: DialogRequest | null;
  toasts: Toast[];
  /** Bumped to ask the sidebar search box to take focus (Ctrl/Cmd+K). */
  focusSearch: number;
  setView(view: View): void;
  openDialog(dialog: DialogRequest): void;
  closeDialog(): void;
  toast(kind: Toast['kind'], text: string): void;
  dismiss(id: number): void;
  requestSearchFocus(): void;
}

let nextToast = 1;

export const useUi = create<UiState>((set) => ({
  view: 'workspace',
  dialog: null,
  toasts: [],
  focusSearch: 0,
  setView(view) {
    set({ view });
  },
  openDialog(dialog) {
    set({ dialog });
  },
  closeDialog() {
    set({ dialog: null });
  },
  toast(kind, text) {
    const id = nextToast++;
    set((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text }] }));
    setTimeout(() => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), kind === 'error' ? 8000 : 4000);
  },
  dismiss(id) {
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  },
  requestSearchFocus() {
    set((s) => ({ focusSearch: s.focusSearch + 1, view: s.view }));
  },
}));
