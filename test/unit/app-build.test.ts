import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultRenderWorkerPath } from '../../src/core/citations/render';
import { defaultWorkerPath } from '../../src/core/ingest/pool';
import { defaultLlamaWorkerPath } from '../../src/core/agent/llama-host';
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

describe('where an engine finds its workers', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('in the build CASEFILE_WORKER_DIR names (as the tests set it), else beside the source; never by the environment inside Electron', () => {
    const built = path.join(repoRoot, 'out', 'main');
    vi.stubEnv('CASEFILE_WORKER_DIR', built);
    expect([defaultWorkerPath(), defaultRenderWorkerPath(), defaultLlamaWorkerPath()]).toEqual(
      ['ingest-worker.js', 'render-worker.js', 'llama-worker.js'].map((f) => path.join(built, f)),
    );
    vi.stubEnv('CASEFILE_WORKER_DIR', '');
    const source = [defaultWorkerPath(), defaultRenderWorkerPath(), defaultLlamaWorkerPath()];
    expect(source).toEqual(
      ['reader/worker.ts', 'citations/render-worker.ts', 'agent/llama-worker.ts'].map((f) =>
        path.join(repoRoot, 'src', 'core', f),
      ),
    );
    vi.stubEnv('CASEFILE_WORKER_DIR', built);
    const versions = process.versions as Record<string, string | undefined>;
    versions.electron = '40.0.0';
    try {
      expect([defaultWorkerPath(), defaultRenderWorkerPath(), defaultLlamaWorkerPath()]).toEqual(source);
    } finally {
      delete versions.electron;
    }
  });
});
