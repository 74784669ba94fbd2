import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { runCasefile } from '../helpers/cli';
import { CUAD_SMALL, cuadPdf, tempHome } from '../helpers/home';

/** Four real CUAD contracts through the real ingest: two co-branding agreements and two content licenses, each named by its parties. */
const PDFS = [CUAD_SMALL.pcquote, CUAD_SMALL.mphase, CUAD_SMALL.datacall, CUAD_SMALL.watchit].map(cuadPdf);

let home: string;
let engine: Engine;
let caseId: string;
const nameOf = (p: string) => path.basename(p);

beforeAll(async () => {
  home = tempHome('casefile-focus-');
  engine = await Engine.open({ home });
  caseId = (await engine.router.call('cases.create', { name: 'Data room' })).id;
  const run = await engine.router.call('ingest.start', { case_id: caseId, paths: PDFS });
  if (!('results' in run)) throw new Error('expected results');
  expect(run.results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed', 'indexed']);
});

afterAll(async () => {
  await engine.close();
});

describe('search focuses on the documents a question names', () => {
  it('a party named: results come from its contract first, and the response says what it focused on', async () => {
    const res = await engine.router.call('search', {
      case_id: caseId,
      query: 'When can Watchit terminate the content license?',
      k: 10,
    });
    expect(res.focus).toBeDefined();
    expect(res.focus!.files.map((f) => f.file_name)).toEqual([nameOf(PDFS[3]!)]);
    // In a case of four, "content license" names two documents too; Watchit names one, and weighs most.
    expect(res.focus!.matched).toEqual(expect.arrayContaining(['Watchit']));
    expect(res.focus!.query).toMatch(/^When can terminate the\b/);
    const focused = res.results.filter((r) => r.file_name === nameOf(PDFS[3]!));
    expect(focused.length).toBeGreaterThan(0);
    // The focused contract's passages come first; the rest of the case fills the list only after them.
    expect(res.results.slice(0, focused.length).every((r) => r.file_name === nameOf(PDFS[3]!))).toBe(true);
    expect(res.focus!.widened).toBe(res.results.length > focused.length);
    expect(focused[0]!.text).toMatch(/terminat/i);
  });

  it('focus off, a file filter, or a question that names no document: the whole case, no focus', async () => {
    const off = await engine.router.call('search', {
      case_id: caseId,
      query: 'When can Watchit terminate the content license?',
      k: 10,
      focus: 'off',
    });
    expect(off.focus).toBeUndefined();
    expect(new Set(off.results.map((r) => r.file_name)).size).toBeGreaterThan(1);
    const filtered = await engine.router.call('search', {
      case_id: caseId,
      query: 'When can Watchit terminate?',
      k: 5,
      file_name: nameOf(PDFS[0]!),
    });
    expect(filtered.focus).toBeUndefined();
    expect(filtered.results.every((r) => r.file_name === nameOf(PDFS[0]!))).toBe(true);
    const unnamed = await engine.router.call('search', {
      case_id: caseId,
      query: 'Which agreements can be terminated for convenience?',
      k: 10,
    });
    expect(unnamed.focus).toBeUndefined();
  });

  it('every result carries its context: the section path, and chunks index the document’s own words only', async () => {
    const res = await engine.router.call('search', {
      case_id: caseId,
      query: 'termination of the co-branding agreement by mPhase',
      k: 5,
    });
    expect(res.focus?.files.map((f) => f.file_name)).toEqual([nameOf(PDFS[1]!)]);
    const { text } = await engine.router.call('files.read', { case_id: caseId, file_id: res.results[0]!.file_id });
    for (const r of res.results.filter((x) => x.file_name === nameOf(PDFS[1]!)))
      expect(text.slice(r.start, r.end)).toBe(r.text);
    expect(res.results.some((r) => r.section_path?.length)).toBe(true);
  });

  it('CLI: search prints what it focused on and how to widen; --focus off searches everything; JSON carries focus', async () => {
    const out = await runCasefile(home, [
      'search',
      'Data room',
      'When can Watchit terminate the content license?',
      '--k',
      '3',
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Focused on the document the question names \(“Watchit”.*\): /);
    expect(out.stdout).toContain(`): ${nameOf(PDFS[3]!)}.`);
    expect(out.stdout).toContain('--focus off searches the whole case.');
    const off = await runCasefile(home, [
      'search',
      'Data room',
      'When can Watchit terminate the content license?',
      '--focus',
      'off',
    ]);
    expect(off.stdout).not.toContain('Focused on');
    const json = await runCasefile(home, ['search', 'Data room', 'Watchit termination', '--json']);
    expect(JSON.parse(json.stdout).focus.files[0].file_name).toBe(nameOf(PDFS[3]!));
    const bad = await runCasefile(home, ['search', 'Data room', 'x', '--focus', 'some']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--focus must be auto or off');
  });
});
