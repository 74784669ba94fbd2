/**
 * The Electron security baseline as plain data and pure functions (no `electron` import), so
 * tests can check it without an Electron binary. index.ts applies it.
 */

const DIRECTIVES = [
  "default-src 'none'",
  "script-src 'self'",
  // No 'unsafe-inline': the built page's styles are its own CSS files, and React sets style props
  // through the CSSOM (element.style), which the policy does not govern; no <style> element or
  // style="" attribute is ever written (serve mode runs the same bundle under the same rule).
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
];

/** Content-Security-Policy of the renderer: only our own bundle, no remote anything. */
export const CONTENT_SECURITY_POLICY = DIRECTIVES.join('; ');

/**
 * The same policy as the built page carries it in a <meta> element: the packaged app loads the page
 * with loadFile, and a file:// page gets no response headers, so the header never reached it.
 * `frame-ancestors` is left out: a <meta> policy may not hold it (the browser ignores it there with
 * a console error); nothing can frame a window's own file:// page anyway.
 */
export const META_CONTENT_SECURITY_POLICY = DIRECTIVES.filter((d) => !d.startsWith('frame-ancestors')).join('; ');

/**
 * The policy sent as a header to the development server's page only (electron-vite dev): Vite's
 * client injects each stylesheet as a <style> element there, which needs 'unsafe-inline'.
 */
export const DEV_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
  "style-src 'self'",
  "style-src 'self' 'unsafe-inline'",
);

/** The part of a Vite plugin `cspMetaPlugin` uses (no vite import in the main process's code). */
export interface HtmlPlugin {
  name: string;
  apply: 'build';
  transformIndexHtml: () => { tag: 'meta'; attrs: Record<string, string>; injectTo: 'head-prepend' }[];
}

/** Vite plugin for the renderer build: the built index.html carries META_CONTENT_SECURITY_POLICY first in its <head>. */
export function cspMetaPlugin(): HtmlPlugin {
  return {
    name: 'casefile-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: META_CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
  };
}

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
