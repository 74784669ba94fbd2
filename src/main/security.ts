/**
 * The Electron security baseline as plain data and pure functions (no `electron` import), so
 * tests can check it without an Electron binary. index.ts applies it.
 */

/** Content-Security-Policy of the renderer: only our own bundle, no remote anything. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  spellcheck: boolean;
}

export function secureWebPreferences(preload: string): SecureWebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: true,
  };
}

/**
 * May the window navigate to `target`? Only within the app's own origin: the packaged renderer
 * (a file: URL under the app's renderer folder) or the dev server origin in development.
 */
export function isAllowedNavigation(target: string, appUrl: string): boolean {
  let to: URL;
  let app: URL;
  try {
    to = new URL(target);
    app = new URL(appUrl);
  } catch {
    return false;
  }
  if (app.protocol === 'file:') {
    const root = app.pathname.slice(0, app.pathname.lastIndexOf('/') + 1);
    return to.protocol === 'file:' && to.pathname.startsWith(root);
  }
  return to.origin === app.origin;
}

/** Requests the app's session lets through: its own bundle, dev server, and data/blob URLs. Nothing remote. */
export function isAllowedRequest(target: string, appUrl: string): boolean {
  if (target.startsWith('data:') || target.startsWith('blob:') || target.startsWith('devtools:')) return true;
  return isAllowedNavigation(target, appUrl);
}

/** Sender check for IPC: only frames showing our own renderer may call the engine. */
export function isTrustedSender(frameUrl: string | undefined, appUrl: string): boolean {
  return typeof frameUrl === 'string' && isAllowedNavigation(frameUrl, appUrl);
}
