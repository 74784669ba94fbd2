import { create } from 'zustand';
import { api, errorMessage } from '../api/index';
import type { SessionInfo } from '../api/types';

/**
 * Who is using the page. On a firm server (`casefile serve --firm`) the app waits behind the
 * sign-in form until someone signs in; in Electron and on a single-token server there are no accounts.
 */
interface SessionState {
  /** 'checking' until the server says; 'open': no accounts or signed in; 'signed-out': show the form. */
  phase: 'checking' | 'open' | 'signed-out';
  info: SessionInfo | null;
  /** Why the last sign-in was refused, in the server's words. */
  error: string | null;
  busy: boolean;
  check(): Promise<void>;
  signIn(user: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

/** Whether this page already follows the end of its session (check() runs again on a remount). */
let following = false;
/** The session ended while the page was open: after signing in again the page starts afresh. */
let ended = false;

export const useSession = create<SessionState>((set) => ({
  phase: 'checking',
  info: null,
  error: null,
  busy: false,
  async check() {
    // A session that ends while the page is open (idle, too old, account removed) brings the form back.
    if (!following) {
      following = true;
      api.onSignedOut?.(() => {
        ended = true;
        set({ phase: 'signed-out', error: 'Your session has ended. Sign in again.' });
      });
    }
    if (!api.session) {
      set({ phase: 'open', info: { firm: false, user: null } });
      return;
    }
    try {
      const info = await api.session();
      set({ info, phase: !info.firm || info.user ? 'open' : 'signed-out' });
    } catch (err) {
      // A single-token page opened without its sign-in link: the app shows the server's own words.
      set({ phase: 'open', info: { firm: false, user: null }, error: errorMessage(err) });
    }
  },
  async signIn(user, password) {
    if (!api.signIn) return;
    set({ busy: true, error: null });
    try {
      const info = await api.signIn(user, password);
      // The old page's event stream and views went with the old session: start afresh.
      if (ended) window.location.reload();
      else set({ info, phase: 'open', busy: false });
    } catch (err) {
      set({ error: errorMessage(err), busy: false });
    }
  },
  async signOut() {
    await api.signOut?.().catch(() => undefined);
    // A fresh page: nothing of the last person's cases stays in memory.
    window.location.reload();
  },
}));
