import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { installTestModels, SMOLLM_ID, tinyRandomGguf } from '../helpers/models';
import { scriptModel, writeCaseFolder } from './helpers';

/**
 * `casefile ask` end to end: the real binary in a child process, a temp home, a case ingested by
 * `casefile ingest`, and real models (tiny random GGUF, SmolLM2-135M-Instruct) or the scripted one.
 */
let root: string;
let home: string;
let caseId: string;
const SMALL = { CASEFILE_LLAMA_THREADS: '1', CASEFILE_LLAMA_CONTEXT: '2048', CASEFILE_AGENT_MAX_TOKENS: '384' };

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'casefile-ask-'));
  home = path.join(root, 'home');
  const created = await runCasefile(home, ['cases', 'create', 'Rivera v. Acme', '--json']);
  caseId = (JSON.parse(created.stdout) as { id: string }).id;
  const ingest = await runCasefile(home, ['ingest', caseId, writeCaseFolder(root), '--json']);
  expect(ingest.code, ingest.stderr).toBe(0);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const JSON_KEYS = ['answer', 'citations', 'steps', 'coverage', 'grounded', 'answer_kind', 'timing'];

describe('casefile ask', () => {
  it('--json – the documented shape, with verified and invented citations', async () => {
    const model = scriptModel(root, {
      steps: [
        { thought: 'Inventory.', action: 'findFiles', action_input: {} },
        { thought: 'Find it.', action: 'grepCase', action_input: { pattern: 'sixty \\(60\\) days' } },
        {
          final:
            'Either party needs "sixty (60) days\' prior written notice" [cite:{{cite}}]. Ninety days is wrong [cite:made01].',
        },
      ],
    });
    const r = await runCasefile(home, [
      'ask',
      'Rivera v. Acme',
      'What notice is needed to terminate the MSA?',
      '--model',
      model,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown> & {
      citations: Array<Record<string, unknown>>;
      steps: Array<Record<string, unknown>>;
      coverage: Record<string, unknown>;
    };
    expect(Object.keys(out)).toEqual(JSON_KEYS);
    expect(out.grounded).toBe(true);
    expect(out.citations).toHaveLength(2);
    for (const c of out.citations)
      expect(Object.keys(c)).toEqual(['id', 'file_name', 'pages', 'verified', 'reason', 'support', 'quote', 'title']);
    expect(out.citations[0]).toMatchObject({ file_name: 'contracts/msa.txt', pages: [1], verified: true });
    expect(out.citations[1]).toMatchObject({
      id: 'made01',
      verified: false,
      reason: expect.stringMatching(/invented/),
    });
    for (const s of out.steps) expect(Object.keys(s)).toEqual(['thought', 'action', 'input', 'observation']);
    expect(out.steps.map((s) => s.action)).toEqual(['findFiles', 'grepCase', 'final_answer']);
    expect(out.coverage).toMatchObject({ files_total: 4, whole_case_searched: true });
    expect(String(out.coverage.note)).toMatch(/broken\.pdf/);
    // Answer first: the passages were ready before the model's answer.
    const timing = out.timing as { total_ms: number; first_answer_ms: number };
    expect(timing.first_answer_ms).toBeGreaterThan(0);
    expect(timing.first_answer_ms).toBeLessThanOrEqual(timing.total_ms);
  });

  it('text – a readable trace, then the answer, citations and their verification', async () => {
    const model = scriptModel(root, {
      steps: [
        { thought: 'Inventory.', action: 'findFiles', action_input: {} },
        { thought: 'Search.', action: 'grepCase', action_input: { pattern: 'sixty' } },
        {
          final:
            "Either party may terminate on sixty (60) days' notice [cite:{{cite}}]. Brightline is the provider [cite:{{cite}}].",
        },
      ],
    });
    const r = await runCasefile(home, ['ask', caseId, 'What notice is needed to terminate the MSA?', '--model', model]);
    expect(r.code, r.stderr).toBe(0);
    // Answer first: the best passages are printed before the model's first step.
    expect(r.stdout).toMatch(
      /Passages found in \d+\.\d s; .+ is writing an answer \(they stay unless its answer verifies\):\nThese passages match your question best/,
    );
    expect(r.stdout.indexOf('Passages found')).toBeLessThan(r.stdout.indexOf('Step 1 ·'));
    expect(r.stdout).toMatch(/Step 1 · findFiles \{\}/);
    expect(r.stdout).toMatch(/Observation — 4 results: 4 files in the case/);
    expect(r.stdout).toMatch(/Answer:\nEither party may terminate on sixty \(60\) days' notice/);
    // One sentence supported, one not: the citation is amber with its reason, and the answer is not grounded.
    expect(r.stdout).toMatch(/— NOT SUPPORTED: the cited passage of MASTER SERVICES AGREEMENT does not say this/);
    expect(r.stdout).toMatch(/Grounded: NO/);
    const session = /--session (\S+)\)/.exec(r.stdout)?.[1];
    expect(session).toBeTruthy();
    const exported = await runCasefile(home, ['chat', caseId, 'export', session!, '--out', path.join(root, 'chat.md')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'chat.md'), 'utf8')).toMatch(/What notice is needed to terminate the MSA\?/);
  });

  it('CASEFILE_SCRIPTED_MODEL – selects the scripted model without --model (the e2e fixture gives a citation chip)', async () => {
    const fixture = path.join(import.meta.dirname, 'fixtures', 'scripted-answer.json');
    const r = await runCasefile(home, ['ask', caseId, 'terminate for convenience', '--json'], {
      env: { CASEFILE_SCRIPTED_MODEL: fixture },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      steps: Array<{ action: string }>;
      citations: Array<{ verified: boolean; file_name: string }>;
      grounded: boolean;
    };
    expect(out.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'final_answer']);
    expect(out.citations[0]).toMatchObject({ verified: true, file_name: 'contracts/msa.txt' });
    expect(out.grounded).toBe(true);
  });

  it('usage – --max-steps outside 1–5 is a usage error (exit 2)', async () => {
    const r = await runCasefile(home, ['ask', caseId, 'q?', '--max-steps', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-steps must be a whole number from 1 to 5/);
  });

  it('--top-k and --threshold – defaults for the agent’s searches, shown in the step input; the model’s own top_k wins', async () => {
    const model = scriptModel(root, {
      steps: [
        { thought: 'Inventory.', action: 'findFiles', action_input: {} },
        { thought: 'Search.', action: 'retrieve', action_input: { query: 'notice' } },
        {
          thought: 'Search more.',
          action: 'keyword_search',
          action_input: { query: 'notice knee deadline', top_k: 3 },
        },
        { final: 'Notice is needed [cite:{{cite}}].' },
      ],
    });
    const r = await runCasefile(home, [
      'ask',
      caseId,
      'What notice is needed?',
      '--model',
      model,
      '--top-k',
      '1',
      '--threshold',
      '0',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      steps: Array<{ action: string; input: Record<string, unknown>; observation: string }>;
    };
    const [retrieve, keyword] = out.steps.filter((s) => s.action !== 'findFiles' && s.action !== 'final_answer');
    expect(retrieve!.input).toEqual({ query: 'notice', top_k: 1, score_threshold: 0 });
    expect(retrieve!.observation).toMatch(/^1 passage \(/);
    expect(keyword!.input).toEqual({ query: 'notice knee deadline', top_k: 3, score_threshold: 0 });
    expect(keyword!.observation).toMatch(/^[23] passages/);

    const bad = await runCasefile(home, ['ask', caseId, 'q?', '--top-k', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--top-k must be a whole number from 1 to 100 \(got "0"\)/);
    const badThreshold = await runCasefile(home, ['ask', caseId, 'q?', '--threshold', 'high']);
    expect(badThreshold.code).toBe(2);
    expect(badThreshold.stderr).toMatch(/--threshold must be a number \(got "high"\)/);
  });

  it('tiny GGUF – a full turn on node-llama-cpp parses every step and ends within max steps', {
    timeout: 320_000,
  }, async () => {
    const r = await runCasefile(
      home,
      [
        'ask',
        caseId,
        'When did the claimant last see a doctor about his knee?',
        '--model',
        tinyRandomGguf,
        '--max-steps',
        '2',
        '--json',
      ],
      { env: SMALL, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      steps: Array<{ action: string }>;
      citations: Array<{ verified: boolean; support: string }>;
      grounded: boolean;
      answer_kind: string;
      answer: string;
    };
    const modelSteps = out.steps.filter((s) => s.action !== 'find_passages');
    expect(modelSteps[0]!.action).toBe('findFiles');
    expect(modelSteps.length).toBeLessThanOrEqual(3);
    expect(modelSteps.at(-1)!.action).toBe('final_answer');
    // Random weights never write a supported sentence: the turn ends with the passages, quoted and verified.
    expect(out.answer_kind).toBe('extractive');
    expect(out.steps.at(-1)!.action).toBe('find_passages');
    expect(out.answer).toMatch(/^The model could not answer this from the documents/);
    expect(out.citations.length).toBeGreaterThan(0);
    for (const c of out.citations) expect(c).toMatchObject({ verified: true, support: 'quoted' });
    expect(out.grounded).toBe(true);
  });

  it('SmolLM2-135M-Instruct – verification is honest about what the model cites', { timeout: 420_000 }, async () => {
    await installTestModels(home, { embedding: false, chat: true });
    const r = await runCasefile(
      home,
      [
        'ask',
        caseId,
        'What notice is needed to terminate the MSA for convenience?',
        '--model',
        SMOLLM_ID,
        '--max-steps',
        '2',
        '--json',
      ],
      {
        env: SMALL,
        timeoutMs: 400_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      answer: string;
      steps: Array<{ action: string; observation: string }>;
      citations: Array<{ id: string; verified: boolean; reason: string; support: string }>;
      grounded: boolean;
      answer_kind: string;
      fallback?: { reason: string; model_answer: string };
    };
    const modelSteps = out.steps.filter((s) => s.action !== 'find_passages');
    expect(modelSteps[0]!.action).toBe('findFiles');
    expect(modelSteps.filter((s) => s.action !== 'final_answer').length).toBeLessThanOrEqual(2);
    expect(modelSteps.at(-1)!.action).toBe('final_answer');
    // The documents were searched before any answer was accepted (the model's own search, or the policy's).
    expect(
      modelSteps.some((s) =>
        ['retrieve', 'keyword_search', 'vector_search', 'grepCase', 'grepFile', 'readFile', 'readSection'].includes(
          s.action,
        ),
      ),
    ).toBe(true);
    if (out.answer_kind === 'extractive') {
      // What a 135M model writes is replaced, and the user is told why; the passages shown verify.
      expect(out.fallback!.reason.length).toBeGreaterThan(0);
      expect(out.answer).toMatch(/^The model could not answer this from the documents/);
      for (const c of out.citations) expect(c).toMatchObject({ verified: true, support: 'quoted' });
    } else {
      // A model answer is shown only with a supported sentence.
      expect(out.citations.some((c) => c.verified)).toBe(true);
    }
    expect(out.grounded).toBe(out.citations.some((c) => c.verified));
  });

  it('--extractive – the best passages quoted with verified citations, no model at all', async () => {
    const r = await runCasefile(home, [
      'ask',
      caseId,
      'What notice is needed to terminate the MSA for convenience?',
      '--extractive',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      answer: string;
      answer_kind: string;
      steps: Array<{ action: string }>;
      citations: Array<{ verified: boolean; support: string; quote: string; file_name: string }>;
      grounded: boolean;
    };
    expect(out.answer_kind).toBe('extractive');
    expect(out.steps.map((s) => s.action)).toEqual(['find_passages']);
    expect(out.answer).toMatch(/^These passages match your question best \(found without a model\):/);
    expect(out.citations[0]).toMatchObject({ verified: true, support: 'quoted', file_name: 'contracts/msa.txt' });
    expect(out.citations[0]!.quote).toMatch(/sixty \(60\) days/i);
    expect(out.grounded).toBe(true);
  });
});
