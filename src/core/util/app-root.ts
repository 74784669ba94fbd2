import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The app's own folder, the one holding its package.json: found by walking up from a module, so the
 * same code finds it from TypeScript source (src/server/…) and from the build (out/main/chunks/…).
 * `moduleUrl` is the caller's `import.meta.url`. Null when no folder above names the app.
 */
export function appRoot(moduleUrl: string): string | null {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'casefile') return dir;
      } catch {
        // not JSON: a folder of someone else's; keep walking up
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}
