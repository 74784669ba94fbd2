/**
 * Vitest's global setup: builds the app (`electron-vite build`) before any test file runs, so the
 * tests start the `casefile` command as the build has it (out/main/cli.js, its workers beside it)
 * rather than through tsx's loader at every start, and the bundle the app ships is the one tested.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '..', '..');
  // Its own script run by this Node (node_modules/.bin/ holds a shell script, or a .cmd on Windows).
  const cli = path.join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const r = spawnSync(process.execPath, [cli, 'build'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`electron-vite build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}
