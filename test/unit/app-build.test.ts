import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/home';

/** Every module of the app's main-process build (out/main, built by vitest's global setup). */
function mainModules(): string[] {
  const dir = path.join(repoRoot, 'out', 'main');
  const chunks = path.join(dir, 'chunks');
  return [
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => path.join(dir, f)),
    ...readdirSync(chunks)
      .filter((f) => f.endsWith('.js'))
      .map((f) => path.join(chunks, f)),
  ];
}

describe("the app's build", () => {
  it('every module of the main process parses (a module-level `require` beside the bundle’s own does not)', () => {
    const modules = mainModules();
    expect(modules.map((f) => path.basename(f))).toEqual(
      expect.arrayContaining(['index.js', 'cli.js', 'ingest-worker.js', 'embed-worker.js', 'render-worker.js']),
    );
    const broken = modules
      .map((file) => ({
        file: path.relative(repoRoot, file),
        r: spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' }),
      }))
      .filter(({ r }) => r.status !== 0)
      .map(({ file, r }) => `${file}: ${r.stderr.split('\n').find((l) => /Error/.test(l)) ?? r.stderr}`);
    expect(broken).toEqual([]);
  });
});
