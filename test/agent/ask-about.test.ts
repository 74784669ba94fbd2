import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStep, ChatAnswer } from '../../src/shared/contract/chat';
import type { EngineEvents } from '../../src/shared/events';
import { runCli } from '../../src/cli/main';
import { ingestedCase, scriptModel, type IngestedCase } from './helpers';

/**
 * "Ask about these": a question limited to documents the user chose. Through the real `chat.ask`
 * with the scripted model as the only boundary, every search the agent makes (hybrid, keyword,
 * vector, grep, the file list, the chronology), the "Find passages" answer and the fallback answer
 * see only the chosen documents, and the turn says so in plain words.
 */
const ACME_NDA = `MUTUAL NON-DISCLOSURE AGREEMENT

This Mutual Non-Disclosure Agreement is made on June 1, 2020 between Acme Logistics LLC and Harbor Freight Partners.

1. Confidential Information. Each party shall keep the other party's Confidential Information secret for two (2) years after disclosure.

2. Termination. Either party may terminate this Agreement upon ten (10) days' written notice to the other party.
`;

const BRIGHTLINE_NDA = `NON-DISCLOSURE AGREEMENT

This Non-Disclosure Agreement is made on September 9, 2019 between Brightline Data Services Inc. and Summit Analytics Ltd.

1. Confidential Information. The receiving party shall keep the Confidential Information secret for seven (7) years after disclosure.

2. Termination. Either party may terminate this Agreement upon thirty (30) days' written notice to the other party.
`;

const OTHERS = ['nda-brightline.txt', 'msa.txt', 'records summary.txt', 'notes.md'];

let c: IngestedCase;
let ids: Record<string, string>;
beforeAll(async () => {
  c = await ingestedCase();
  const dir = path.join(c.root, 'ndas');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'nda-acme.txt'), ACME_NDA);
  writeFileSync(path.join(dir, 'nda-brightline.txt'), BRIGHTLINE_NDA);
  await c.engine.router.call('ingest.start', { case_id: c.caseId, paths: [dir], wait: true });
  const { files } = await c.engine.router.call('files.list', { case_id: c.caseId });
  // Files are named by their path in the folder dropped ("contracts/msa.txt"): keyed here by their last part.
  ids = Object.fromEntries(files.map((f) => [f.name.split('/').pop()!, f.id]));
}, 120_000);
afterAll(async () => {
  await c?.engine.close();
  if (c) rmSync(c.root, { recursive: true, force: true });
});

const QUESTION = 'How long must Confidential Information be kept secret, and what notice ends the agreement?';
const step = (action: string, action_input: Record<string, unknown>) => ({
  thought: `Use ${action}.`,
  action,
  action_input,
});
/** Every kind of search the agent has, in two turns (a turn takes at most five steps). */
const SEARCHES = [
  step('findFiles', {}),
  step('retrieve', { query: 'Confidential Information secret termination notice' }),
  step('keyword_search', { query: 'Confidential Information secret years' }),
  step('vector_search', { query: 'how long is information kept confidential' }),
  { final: 'Two years [cite:{{cite}}].' },
];
const GREP_AND_CHRONOLOGY = [
  step('findFiles', {}),
  step('grepCase', { pattern: 'notice|knee|invoices' }),
  step('timeline', {}),
  { final: 'Ten days [cite:{{cite}}].' },
];
const EVERY_SEARCH = [SEARCHES, GREP_AND_CHRONOLOGY];

/** Both turns, limited to `file_ids` when given: their answers. */
async function askEverySearch(file_ids?: string[]): Promise<ChatAnswer[]> {
  const out: ChatAnswer[] = [];
  for (const steps of EVERY_SEARCH) {
    out.push(
      await c.engine.router.call('chat.ask', {
        case_id: c.caseId,
        question: QUESTION,
        ...(file_ids ? { file_ids } : {}),
        model: scriptModel(c.root, { steps }),
      }),
    );
  }
  return out;
}

const actions = (steps: AgentStep[]) => steps.filter((s) => s.kind === 'action');
/** The file names a step's tool result (the observation the model was shown) names. */
const namedIn = (text: string) => ['nda-acme.txt', ...OTHERS].filter((n) => text.includes(n));

function expectOnlyAcme(r: ChatAnswer): void {
  for (const s of actions(r.steps)) {
    expect(namedIn(s.observation), `${s.action}'s result names only the chosen NDA`).toEqual(
      namedIn(s.observation).length ? ['nda-acme.txt'] : [],
    );
  }
  expect(r.citations.length).toBeGreaterThan(0);
  expect(new Set(r.citations.map((x) => x.file_name))).toEqual(new Set(['nda-acme.txt']));
}

describe('chat.ask limited to chosen documents', () => {
  it('without a limit the same searches reach the other files (the comparison that makes the next test mean something)', async () => {
    const turns = await askEverySearch();
    const seen = new Set(turns.flatMap((r) => actions(r.steps).flatMap((s) => namedIn(s.observation))));
    expect([...seen]).toEqual(
      expect.arrayContaining(['nda-acme.txt', 'nda-brightline.txt', 'msa.txt', 'records summary.txt']),
    );
    for (const r of turns) {
      expect(r.limited_to).toBeUndefined();
      expect(r.coverage.note).not.toMatch(/Limited to/);
    }
  });

  it('limited to one NDA: every search, the file list and the chronology see only it; the citations are from it; the turn says so', async () => {
    const live: EngineEvents['agent.turn'][] = [];
    const off = c.engine.events.on('agent.turn', (e) => live.push(e));
    const [r, g] = await askEverySearch([ids['nda-acme.txt']!]);
    off();
    for (const t of [r!, g!]) {
      expect(t.status).toBe('done');
      expectOnlyAcme(t);
    }
    const [files, retrieve, keyword] = actions(r!.steps);
    const [, grep, timeline] = actions(g!.steps);
    expect(files!.observation).toMatch(/^1 file the user limited this question to:/);
    expect(retrieve!.summary!.count).toBeGreaterThan(0);
    expect(keyword!.summary!.count).toBeGreaterThan(0);
    expect(grep!.observation).toContain('nda-acme.txt');
    expect(timeline!.observation).toContain('2020-06-01');
    expect(timeline!.observation).not.toMatch(/2019|2021|2022|2023/);
    // The trace says it in plain words: on the answer, in the coverage note, as the turn starts, and in the saved session.
    expect(r!.limited_to).toEqual({
      files: [{ file_id: ids['nda-acme.txt'], file_name: 'nda-acme.txt' }],
      line: 'Limited to the 1 document you chose: nda-acme.txt',
    });
    expect(r!.coverage.note).toMatch(/^Limited to the 1 document you chose: nda-acme\.txt\./);
    expect(live.find((e) => e.turn_id === r!.turn_id && e.phase === 'started')?.limited_to?.line).toBe(
      r!.limited_to!.line,
    );
    const saved = await c.engine.router.call('chat.session', { case_id: c.caseId, session_id: r!.session_id });
    expect(saved.messages_list.find((m) => m.role === 'assistant')!.limited_to).toEqual(r!.limited_to);
  });

  it('a document outside the choice cannot be read by id either', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: QUESTION,
      file_ids: [ids['nda-acme.txt']!],
      model: scriptModel(c.root, {
        steps: [
          step('findFiles', {}),
          step('readFile', { file_id: ids['msa.txt'] }),
          step('retrieve', { query: 'Confidential Information' }),
          { final: 'Two years [cite:{{cite}}].' },
        ],
      }),
    });
    const [, read] = actions(r.steps);
    expect(read!.error).toBe(true);
    expect(read!.observation).toMatch(/not among the documents this question is limited to/);
    expectOnlyAcme(r);
  });

  it('two documents chosen: the line names both, and nothing from the rest of the case comes back', async () => {
    const turns = await askEverySearch([ids['nda-acme.txt']!, ids['nda-brightline.txt']!]);
    expect(turns[0]!.limited_to!.line).toBe('Limited to 2 documents you chose: nda-acme.txt, nda-brightline.txt');
    const seen = new Set(turns.flatMap((r) => actions(r.steps).flatMap((s) => namedIn(s.observation))));
    expect([...seen].sort()).toEqual(['nda-acme.txt', 'nda-brightline.txt']);
  });

  it('"Find passages" (no model) quotes only the chosen document', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: QUESTION,
      mode: 'extractive',
      file_ids: [ids['nda-acme.txt']!],
    });
    expect(r.answer_kind).toBe('extractive');
    expect(r.citations.length).toBeGreaterThan(0);
    expect(new Set(r.citations.map((x) => x.file_name))).toEqual(new Set(['nda-acme.txt']));
    expect(r.coverage.note).toMatch(/^Limited to the 1 document you chose: nda-acme\.txt\./);
    // The same question over the whole case quotes other documents too.
    const all = await c.engine.router.call('chat.ask', { case_id: c.caseId, question: QUESTION, mode: 'extractive' });
    expect(all.citations.some((x) => x.file_name !== 'nda-acme.txt')).toBe(true);
  });

  it('an unusable model answer falls back to the best passages of the chosen document only', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: QUESTION,
      file_ids: [ids['nda-acme.txt']!],
      model: scriptModel(c.root, { steps: [{ final: 'I think it is forever.' }] }),
    });
    expect(r.answer_kind).toBe('extractive');
    expect(r.fallback).toBeDefined();
    expect(r.citations.length).toBeGreaterThan(0);
    expect(new Set(r.citations.map((x) => x.file_name))).toEqual(new Set(['nda-acme.txt']));
  });

  it('the search operation takes the same limit', async () => {
    const r = await c.engine.router.call('search', {
      case_id: c.caseId,
      query: 'Confidential Information secret',
      mode: 'keyword',
      file_ids: [ids['nda-brightline.txt']!],
    });
    expect(r.results.length).toBeGreaterThan(0);
    expect(new Set(r.results.map((x) => x.file_name))).toEqual(new Set(['nda-brightline.txt']));
  });

  it('input – an unknown id, an empty list or an empty id is refused in plain words', async () => {
    const ask = (file_ids: unknown) =>
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q', file_ids } as never);
    await expect(ask(['f_nope'])).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/One of the documents you chose is not in this case .*"f_nope"/),
    });
    await expect(ask([ids['nda-acme.txt'], 'f_a', 'f_b'])).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/2 of the documents you chose are not in this case/),
    });
    await expect(ask([])).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/file_ids: Choose at least one document\./),
    });
    await expect(ask([''])).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/file_ids\.0: A chosen document has no id; choose the documents again\./),
    });
    await expect(ask('nda-acme.txt')).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/file_ids: Choose the documents as a list\./),
    });
    await expect(ask(Array.from({ length: 1001 }, (_, i) => `f${i}`))).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/at most 1000 documents/),
    });
  });

  it('CLI: ask --file NAME (repeatable) limits the question and prints the line; an unknown name is refused', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (s: string) => void out.push(s),
      err: (s: string) => void err.push(s),
      isTTY: false,
      env: process.env,
    };
    const code = await runCli(
      ['--home', c.home, 'ask', 'Rivera v. Acme', QUESTION, '--extractive', '--file', 'nda-acme.txt', '--json'],
      io,
    );
    expect(code).toBe(0);
    const json = JSON.parse(out.join('\n'));
    expect(json.limited_to.line).toBe('Limited to the 1 document you chose: nda-acme.txt');
    expect(new Set(json.citations.map((x: { file_name: string }) => x.file_name))).toEqual(new Set(['nda-acme.txt']));
    out.length = 0;
    expect(
      await runCli(
        [
          '--home',
          c.home,
          'ask',
          'Rivera v. Acme',
          QUESTION,
          '--extractive',
          '--file',
          'nda-acme.txt',
          '--file',
          'nda-brightline.txt',
        ],
        io,
      ),
    ).toBe(0);
    expect(out.join('\n')).toContain('Limited to 2 documents you chose: nda-acme.txt, nda-brightline.txt.');
    expect(await runCli(['--home', c.home, 'ask', 'Rivera v. Acme', QUESTION, '--file', 'no-such.pdf'], io)).toBe(1);
    expect(err.join('\n')).toMatch(/No file "no-such\.pdf" in case "Rivera v\. Acme"/);
  });
});
