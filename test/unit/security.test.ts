import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, type PluginOption } from 'vite';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  cspMetaPlugin,
  DEV_CONTENT_SECURITY_POLICY,
  META_CONTENT_SECURITY_POLICY,
  isAllowedNavigation,
  isAllowedRequest,
  isTrustedSender,
  secureWebPreferences,
} from '../../src/main/security';
import { repoRoot, tempHome } from '../helpers/home';

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
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [k, ...v] = d.trim().split(/\s+/);
        return [k, v];
      }),
    );
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(directives['connect-src']).toEqual(["'self'"]);
  });

  it('CSP – styles come from the app’s own files only: no inline styles (the dev server alone allows the <style> Vite injects)', () => {
    const styles = (policy: string) =>
      policy
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('style-src'));
    expect(styles(CONTENT_SECURITY_POLICY)).toBe("style-src 'self'");
    expect(styles(META_CONTENT_SECURITY_POLICY)).toBe("style-src 'self'");
    expect(styles(DEV_CONTENT_SECURITY_POLICY)).toBe("style-src 'self' 'unsafe-inline'");
    // A <meta> policy may not hold frame-ancestors; everything else is the same policy.
    expect(META_CONTENT_SECURITY_POLICY).not.toMatch(/frame-ancestors/);
    expect(CONTENT_SECURITY_POLICY.replace(/; frame-ancestors 'none'/, '')).toBe(META_CONTENT_SECURITY_POLICY);
    // The renderer writes no <style> element and no style attribute for the policy to block (React's style props go through the CSSOM).
    const renderer = path.join(repoRoot, 'src/renderer');
    const sources =
      readFileSync(path.join(renderer, 'index.html'), 'utf8') +
      listSources(path.join(renderer, 'src'))
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
    expect(sources).not.toMatch(
      /<style|createElement\(['"]style|setAttribute\(['"]style|\.cssText|innerHTML|insertRule|adoptedStyleSheets/,
    );
  });

  it('the built page carries the CSP in a <meta> first in its head: the packaged app loads it from file://, where no header applies', async () => {
    const root = path.join(tempHome(), 'page');
    mkdirSync(root);
    writeFileSync(
      path.join(root, 'index.html'),
      '<!doctype html><html><head><meta charset="UTF-8" /><title>t</title></head><body><script type="module" src="./main.js"></script></body></html>',
    );
    writeFileSync(path.join(root, 'main.js'), "import './app.css';\ndocument.title = 'built';\n");
    writeFileSync(path.join(root, 'app.css'), 'body { color: black; }\n');
    await build({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [cspMetaPlugin()],
      build: { outDir: path.join(root, 'out') },
    });
    const html = readFileSync(path.join(root, 'out', 'index.html'), 'utf8');
    const head = html.slice(html.indexOf('<head>'), html.indexOf('</head>'));
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(head);
    expect(meta?.[1]?.replace(/&#39;/g, "'")).toBe(META_CONTENT_SECURITY_POLICY);
    // Before every script and stylesheet: a policy applies only to what comes after it.
    expect(head.indexOf('Content-Security-Policy')).toBeLessThan(head.search(/<script|<link/));
    // And the renderer's own build uses the plugin.
    const config = (await import('../../electron.vite.config')).default as { renderer: { plugins: PluginOption[] } };
    const names = (config.renderer.plugins.flat(3) as { name?: string }[]).map((p) => p?.name);
    expect(names).toContain('casefile-csp-meta');
  });

  it('navigation – stays inside the app, refuses other origins and other files', () => {
    expect(isAllowedNavigation('file:///opt/Casefile/resources/app.asar/out/renderer/index.html#/case/1', APP)).toBe(
      true,
    );
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

function listSources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|css)$/.test(f))
    .map((f) => path.join(dir, f));
}
