/**
 * The CLI prints file names safely (issue #11, part 5): a name carrying terminal escape sequences,
 * a newline or a bidi override is shown escaped in every human-readable output, so it cannot
 * recolour the terminal, retitle its window, forge table rows or reorder what is shown. `--json`
 * keeps the exact names.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const HOSTILE = {
  colour: 'red\x1b[31malert.txt',
  title: 'retitle\x1b]0;pwned\x07.txt',
  newline: 'two\nNAME  VERSION  forged row.txt',
  bidi: 'invoice\u202Etxt.exe.txt',
  isolate: 'memo\u2067hidden\u2069.txt',
};

/** Control characters and bidi overrides/isolates a terminal acts on. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('casefile prints hostile file names escaped', () => {
  const home = tempHome('casefile-escape-');

  it('ingest, files and search – names escaped in text, exact in --json', async () => {
    const dir = path.join(home, 'incoming', 'Matter');
    mkdirSync(dir, { recursive: true });
    for (const name of Object.values(HOSTILE))
      writeFileSync(path.join(dir, name), `The tenant gave ninety days notice. \x1b[2J Signed ${name.length}.`);

    expect((await runCasefile(home, ['cases', 'create', 'Hostile names'])).code).toBe(0);
    const ingest = await runCasefile(home, ['ingest', 'Hostile names', dir]);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).not.toMatch(RAW);

    const files = await runCasefile(home, ['files', 'Hostile names']);
    expect(files.code, files.stderr).toBe(0);
    expect(files.stdout).not.toMatch(RAW);
    // One header and one row per file: a newline in a name cannot add a row.
    expect(files.stdout.trimEnd().split('\n')).toHaveLength(1 + Object.keys(HOSTILE).length);
    expect(files.stdout).toContain('red\\x1b[31malert.txt');
    expect(files.stdout).toContain('retitle\\x1b]0;pwned\\x07.txt');
    expect(files.stdout).toContain('two\\nNAME  VERSION  forged row.txt');
    expect(files.stdout).toContain('invoice\\u202etxt.exe.txt');
    expect(files.stdout).toContain('memo\\u2067hidden\\u2069.txt');

    const json = await runCasefile(home, ['files', 'Hostile names', '--json']);
    const listed = (JSON.parse(json.stdout) as { files: { name: string }[] }).files.map((f) => f.name);
    expect(listed.sort()).toEqual(Object.values(HOSTILE).sort());

    const search = await runCasefile(home, [
      'search',
      'Hostile names',
      'ninety days notice',
      '--mode',
      'keyword',
      '--k',
      '10',
    ]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).not.toMatch(RAW);
    expect(search.stderr).not.toMatch(RAW);
    // Two lines per result (its heading and its passage), one result per file.
    expect(search.stdout.trimEnd().split('\n')).toHaveLength(2 * Object.keys(HOSTILE).length);
    expect(search.stdout).toContain('red\\x1b[31malert.txt');
    expect(search.stdout).toContain('invoice\\u202etxt.exe.txt');

    const searchJson = await runCasefile(home, [
      'search',
      'Hostile names',
      'ninety days notice',
      '--mode',
      'keyword',
      '--k',
      '10',
      '--json',
    ]);
    const found = (JSON.parse(searchJson.stdout) as { results: { file_name: string }[] }).results.map(
      (r) => r.file_name,
    );
    expect(found.sort()).toEqual(Object.values(HOSTILE).sort());
  });

  it('errors – a case name typed with escape sequences is echoed escaped', async () => {
    const r = await runCasefile(home, ['files', 'no such \x1b]0;pwned\x07 case']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(r.stderr).not.toMatch(RAW);
  });
});
