import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile, type CliResult } from '../helpers/cli';
import { repoRoot, tempHome } from '../helpers/home';

/** Packages only the features behind ingest, search, citations, models and the agent need. */
const FEATURE_PACKAGES = [
  '@lancedb/lancedb',
  'apache-arrow',
  'onnxruntime-node',
  '@huggingface/transformers',
  'node-llama-cpp',
  'pdfjs-dist',
  '@napi-rs/canvas',
  'mammoth',
  'ai',
];

/** Package of a loaded file: the name after its last node_modules/ (scoped names included). */
function packageOf(file: string): string | null {
  const m = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.replace(/\\/g, '/'));
  return m ? m[1]! : null;
}

/** Run the real `casefile` with the load recorder; the packages it loaded. */
async function runRecorded(
  home: string,
  args: string[],
): Promise<CliResult & { loaded: string[]; packages: Set<string> }> {
  const log = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-loads-')), 'loads.txt');
  const result = await runCasefile(home, args, {
    nodeArgs: ['--import', path.join(repoRoot, 'test/helpers/load-recorder.mjs')],
    env: { CASEFILE_LOAD_LOG: log },
  });
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return {
    ...result,
    loaded: lines,
    packages: new Set(lines.map(packageOf).filter((p): p is string => p !== null)),
  };
}

describe('light commands start without the features (child process)', () => {
  it('cases create, cases list, --help, --version – load no LanceDB, onnxruntime, node-llama-cpp or pdf.js', async () => {
    const home = tempHome();
    for (const args of [
      ['cases', 'create', 'Light', '--json'],
      ['cases', 'list', '--json'],
      ['--help'],
      ['--version'],
    ]) {
      const r = await runRecorded(home, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(
        r.loaded.some((f) => f.endsWith('/out/main/cli.js')),
        'the recorder saw the run',
      ).toBe(true);
      expect(
        FEATURE_PACKAGES.filter((p) => r.packages.has(p)),
        args.join(' '),
      ).toEqual([]);
    }
    const { cases } = JSON.parse((await runRecorded(home, ['cases', 'list', '--json'])).stdout) as {
      cases: { name: string; files: number }[];
    };
    expect(cases).toEqual([expect.objectContaining({ name: 'Light', files: 0 })]);
  });

  it('a feature command loads its feature on demand – files loads LanceDB and answers as before', async () => {
    const home = tempHome();
    const { id } = JSON.parse((await runCasefile(home, ['cases', 'create', 'Heavy', '--json'])).stdout) as {
      id: string;
    };
    const r = await runRecorded(home, ['files', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ files: [] });
    expect(r.packages.has('@lancedb/lancedb')).toBe(true);

    const missing = await runRecorded(home, ['files', 'no-such-case']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No case with id or name "no-such-case"/);
  });
});
