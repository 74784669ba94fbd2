import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  isAllowedNavigation,
  isAllowedRequest,
  isTrustedSender,
  secureWebPreferences,
} from '../../src/main/security';
import { repoRoot } from '../helpers/home';

const APP = 'file:///opt/Casefile/resources/app.asar/out/renderer/index.html';

describe('electron security baseline', () => {
  it('webPreferences – isolation and sandbox on, Node off', () => {
    const prefs = secureWebPreferences('/p/preload.cjs');
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('main process – every window is built from the secure preferences', () => {
    const main = readFileSync(path.join(repoRoot, 'src/main/index.ts'), 'utf8');
    const windows = main.match(/new BrowserWindow\(/g) ?? [];
    expect(windows.length).toBe(1);
    expect(main).toMatch(/webPreferences: secureWebPreferences\(/);
    expect(main).toMatch(/setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
    expect(main).toMatch(/'will-navigate'/);
    expect(main).not.toMatch(/nodeIntegration:\s*true|sandbox:\s*false|contextIsolation:\s*false/);
  });

  it('CSP – no remote origins, no eval, no inline script', () => {
    const directives = Object.fromEntries(CONTENT_SECURITY_POLICY.split(';').map((d) => {
      const [k, ...v] = d.trim().split(/\s+/);
      return [k, v];
    }));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(directives['connect-src']).toEqual(["'self'"]);
  });

  it('navigation – stays inside the app, refuses other origins and other files', () => {
    expect(isAllowedNavigation('file:///opt/Casefile/resources/app.asar/out/renderer/index.html#/case/1', APP)).toBe(true);
    expect(isAllowedNavigation('https://example.com/', APP)).toBe(false);
    expect(isAllowedNavigation('file:///etc/passwd', APP)).toBe(false);
    expect(isAllowedNavigation('not a url', APP)).toBe(false);
    expect(isAllowedNavigation('http://localhost:5173/x', 'http://localhost:5173/')).toBe(true);
    expect(isAllowedNavigation('http://localhost:5174/x', 'http://localhost:5173/')).toBe(false);
  });

  it('requests – no remote content is loaded', () => {
    expect(isAllowedRequest('https://fonts.googleapis.com/css', APP)).toBe(false);
    expect(isAllowedRequest('http://169.254.169.254/', APP)).toBe(false);
    expect(isAllowedRequest('data:image/png;base64,AAAA', APP)).toBe(true);
    expect(isAllowedRequest('file:///opt/Casefile/resources/app.asar/out/renderer/assets/index.js', APP)).toBe(true);
  });

  it('IPC – only our own renderer frame may call the engine', () => {
    expect(isTrustedSender(APP, APP)).toBe(true);
    expect(isTrustedSender('https://evil.example/', APP)).toBe(false);
    expect(isTrustedSender(undefined, APP)).toBe(false);
  });
});
