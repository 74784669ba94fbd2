import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/io';
import { tempHome } from '../helpers/home';
import { corpusText, indexDocs } from './helpers';

let home: string;
let caseId: string;

function io(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), isTTY: false, env: {} };
}

beforeEach(async () => {
  home = tempHome();
  const engine = await Engine.open({ home });
  caseId = (await engine.cases.create('Lease dispute')).id;
  await indexDocs(engine, caseId, [
    { fileId: 'f-bt', name: 'BT_NDA.txt', text: corpusText('legalbench-rag/corpus/contractnli/BT_NDA.txt') },
    {
      fileId: 'f-ag',
      name: 'AGProjects-NDA.txt',
      text: corpusText('legalbench-rag/corpus/contractnli/AGProjects-NDA.txt'),
    },
  ]);
  await engine.close();
});

describe('casefile search', () => {
  it('--json – prints exactly the documented shape, with semantic false and the reason when no model is installed', async () => {
    const out = io();
    const code = await runCli(
      [
        '--home',
        home,
        'search',
        'Lease dispute',
        'governed by the laws of Netherlands',
        '--mode',
        'keyword',
        '--k',
        '3',
        '--json',
      ],
      out,
    );
    expect(code).toBe(0);
    expect(out.stdout).toHaveLength(1);
    const body = JSON.parse(out.stdout[0]!) as {
      results: Record<string, unknown>[];
      semantic: boolean;
      semantic_reason?: string;
    };
    expect(body.semantic).toBe(false);
    expect(body.semantic_reason).toMatch(/no embedding model/);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(3);
    const r = body.results[0]!;
    // Every documented field, and nothing undocumented (section_path and document_title appear where the document's outline has them).
    const required = ['chunk_id', 'citation', 'file_name', 'label', 'pages', 'score', 'text', 'version'];
    expect(
      Object.keys(r)
        .filter((k) => !['section_path', 'document_title'].includes(k))
        .sort(),
    ).toEqual(required);
    expect(r).toMatchObject({
      file_name: 'AGProjects-NDA.txt',
      version: 1,
      label: expect.any(String),
      score: expect.any(Number),
    });
    expect(r.text).toContain('Netherlands');
    expect(r.pages).toEqual([expect.any(Number), expect.any(Number)]);
    // Until 0.2 every `file_id` of --json output also carries its camelCase alias (docs/cli.md).
    expect(Object.keys(r.citation as object).sort()).toEqual([
      'end',
      'fileId',
      'file_id',
      'file_name',
      'id',
      'pages',
      'start',
      'version',
    ]);
  });

  it('plain output – ranked lines with scores, labels and cite ids; says semantic search is off', async () => {
    const out = io();
    expect(await runCli(['--home', home, 'search', caseId, 'Republic of South Africa'], out)).toBe(0);
    expect(out.stderr.join('\n')).toMatch(/Semantic search is off/);
    expect(out.stdout.join('\n')).toMatch(
      /^1\. \[c[0-9a-z]{5}\] BT_NDA\.txt v1, pp?\. [\d–]+ {2}\((strong|good|partial|weak|none) [\d.]+\)/m,
    );
  });

  it('usage errors – exit 2 with the reason', async () => {
    for (const args of [
      ['search', caseId],
      ['search', caseId, 'x', '--mode', 'fuzzy'],
      ['search', caseId, 'x', '--k', '0'],
    ]) {
      const out = io();
      expect(await runCli(['--home', home, ...args], out)).toBe(2);
      expect(out.stderr[0]).toMatch(/casefile: (search takes|--mode must|--k must)/);
    }
    const out = io();
    expect(await runCli(['--home', home, 'search', 'no such case', 'x'], out)).toBe(1);
    expect(out.stderr[0]).toMatch(/No case with id or name "no such case"/);
  });
});

describe('contract operations', () => {
  let engine: Engine;
  beforeEach(async () => {
    engine = await Engine.open({ home });
  });
  afterEach(async () => {
    await engine.close();
  });

  it('search – validates input and applies filters', async () => {
    const res = await engine.router.call('search', {
      case_id: caseId,
      query: 'confidential information',
      mode: 'keyword',
      k: 5,
      file_name: 'BT_NDA.txt',
    });
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((r) => r.file_name === 'BT_NDA.txt')).toBe(true);
    await expect(engine.router.call('search', { case_id: caseId, query: '  ' })).rejects.toMatchObject({
      code: 'invalid_input',
      fields: [{ field: 'query' }],
    });
    await expect(engine.router.call('search', { case_id: caseId, query: 'x', mode: 'fuzzy' })).rejects.toMatchObject({
      fields: [{ field: 'mode' }],
    });
    await expect(engine.router.call('search', { case_id: 'nonexistent', query: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('tools.* – findFiles, readFile, grepFile, grepCase through the router', async () => {
    const files = await engine.router.call('tools.findFiles', { case_id: caseId });
    expect(files.total).toBe(2);
    const read = await engine.router.call('tools.readFile', {
      case_id: caseId,
      file_id: 'f-bt',
      offset: 0,
      max_length: 50,
    });
    expect(read.text).toHaveLength(50);
    const grep = await engine.router.call('tools.grepFile', {
      case_id: caseId,
      file_id: 'f-ag',
      pattern: 'Netherlands',
    });
    expect(grep.total).toBe(2);
    const all = await engine.router.call('tools.grepCase', { case_id: caseId, pattern: 'Receiving Party' });
    expect(all.coverage.files_searched).toBe(2);
    await expect(engine.router.call('tools.grepCase', { case_id: caseId, pattern: '[' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
