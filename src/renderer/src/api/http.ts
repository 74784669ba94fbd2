import type { EngineEvents, EventEnvelope, EventName } from '../../../shared/events';
import { isApiErrorShape } from '../../../shared/errors';
import { download } from '../lib/citations';
import { ApiError } from './errors';
import type { Api, SessionInfo } from './types';

/** Base path of the serve-mode API (same origin as the page; the auth cookie rides along). */
const BASE = '/api';

/** A firm server's per-session token, sent with every request that changes something (null: none). */
let csrf: string | null = null;
const csrfHeader = (): Record<string, string> => (csrf ? { 'X-Casefile-CSRF': csrf } : {});

/** Who hears that a firm server's session has ended (idle, too old, or the account removed). */
const signedOutListeners = new Set<() => void>();

function signedOut(): void {
  csrf = null;
  for (const listener of signedOutListeners) listener();
}

/** Read `/api/session` or `/api/sign-in`'s answer and keep its CSRF token. */
async function sessionFrom(res: Response): Promise<SessionInfo> {
  if (!res.ok) throw await readError(res);
  const body = (await res.json()) as SessionInfo & { csrf: string | null };
  csrf = body.csrf;
  return { firm: body.firm, user: body.user };
}

/** Signing in and out of a firm server. */
const accounts: Pick<Api, 'session' | 'signIn' | 'signOut' | 'onSignedOut'> = {
  onSignedOut(listener) {
    signedOutListeners.add(listener);
    return () => {
      signedOutListeners.delete(listener);
    };
  },
  async session() {
    return sessionFrom(await fetch(`${BASE}/session`, { credentials: 'same-origin' }));
  },
  async signIn(user, password) {
    const res = await fetch(`${BASE}/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user, password }),
      credentials: 'same-origin',
    });
    return sessionFrom(res);
  },
  async signOut() {
    const res = await fetch(`${BASE}/sign-out`, { method: 'POST', headers: csrfHeader(), credentials: 'same-origin' });
    if (!res.ok) throw await readError(res);
    csrf = null;
  },
};

/** The file name a download's Content-Disposition gives (its UTF-8 form first). */
function attachmentName(header: string | null): string | null {
  const utf8 = header?.match(/filename\*=UTF-8''([^;]+)/i)?.[1];
  if (utf8) {
    try {
      return decodeURIComponent(utf8);
    } catch {
      // a broken escape: fall back to the plain name
    }
  }
  return header?.match(/filename="([^"]+)"/i)?.[1] ?? null;
}

/** Serve mode's Export…: the server exports the case and sends the matter file back as a download. */
export async function downloadMatter(input: { case_id: string; passphrase?: string }): Promise<void> {
  const res = await fetch(`${BASE}/export`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
    credentials: 'same-origin',
  });
  if (!res.ok) throw await readError(res);
  const name = attachmentName(res.headers.get('Content-Disposition')) ?? 'matter.casefile';
  download(await res.blob(), 'application/octet-stream', name);
}

async function readError(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const shape = (body as { error?: unknown } | undefined)?.error;
  if (isApiErrorShape(shape)) return new ApiError(shape);
  if (res.status === 401) {
    return new ApiError({
      code: 'invalid_input',
      message:
        'This page is not signed in to the Casefile server. Open the address the Casefile server printed when it started.',
    });
  }
  return new ApiError({ code: 'internal', message: `The Casefile server answered ${res.status} ${res.statusText}.` });
}

/** An operation over HTTP: its JSON answer, or the error it answered. */
const callOp: Api['call'] = async (name, input) => {
  const res = await fetch(`${BASE}/op/${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...csrfHeader() },
    body: JSON.stringify(input ?? {}),
    credentials: 'same-origin',
  });
  if (!res.ok) {
    if (res.status === 401 && csrf) signedOut();
    throw await readError(res);
  }
  return (await res.json()) as never;
};

/** The serve-mode transport: JSON over HTTP for operations, server-sent events for engine events. */
export function httpApi(): Api {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const resync = new Set<() => void>();
  let source: EventSource | null = null;

  const ensureStream = () => {
    if (source) return;
    source = new EventSource(`${BASE}/events`, { withCredentials: true });
    // Each (re)connection may have missed events — the first one included, since views load
    // before the stream is up — so views reload what they show.
    source.onopen = () => resync.forEach((cb) => cb());
    source.onmessage = (msg) => {
      let env: EventEnvelope;
      try {
        env = JSON.parse(msg.data as string) as EventEnvelope;
      } catch {
        return;
      }
      listeners.get(env.name)?.forEach((cb) => cb(env.payload));
    };
  };

  return {
    ...accounts,
    call: callOp,
    on<E extends EventName>(event: E, listener: (payload: EngineEvents[E]) => void) {
      ensureStream();
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: unknown) => void);
      listeners.set(event, set);
      return () => {
        set.delete(listener as (payload: unknown) => void);
      };
    },
    onResync(listener) {
      ensureStream();
      resync.add(listener);
      return () => {
        resync.delete(listener);
      };
    },
    async stage(items, onProgress, signal) {
      const files = await items.files();
      if (files.length === 0)
        throw new ApiError({ code: 'invalid_input', message: 'Nothing to add: the folder is empty.' });
      const start = await fetch(`${BASE}/upload`, {
        method: 'POST',
        headers: csrfHeader(),
        credentials: 'same-origin',
        ...(signal ? { signal } : {}),
      });
      if (!start.ok) throw await readError(start);
      const { batch } = (await start.json()) as { batch: string };
      const tops = new Set<string>();
      let done = 0;
      onProgress?.(0, files.length);
      for (const { file, relPath } of files) {
        const res = await fetch(`${BASE}/upload/${batch}?path=${encodeURIComponent(relPath)}`, {
          method: 'PUT',
          body: file,
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/octet-stream', ...csrfHeader() },
          ...(signal ? { signal } : {}),
        });
        if (!res.ok) throw await readError(res);
        const { top } = (await res.json()) as { top: string };
        tops.add(top);
        onProgress?.(++done, files.length);
      }
      return [...tops];
    },
  };
}
