import { describe, expect, it } from 'vitest';
import { FORMAT_STOP, offTopicNote, REPEATED_CALL_STOP } from '../../src/core/agent/policies';
import type { AgentStep } from '../../src/shared/contract/chat';
import { collapseSteps, describePolicy, describeStep, formatSeconds, stepSeconds } from '../../src/shared/steps';

/** A step as the loop records it (src/core/agent/loop.ts, tool-runner.ts). */
function step(index: number, over: Partial<AgentStep>): AgentStep {
  return {
    index,
    kind: 'action',
    thought: '',
    action: 'findFiles',
    input: {},
    observation: '',
    timing: { model_ms: 0, tool_ms: 0 },
    tokens: { input: 0, output: 0 },
    ...over,
  };
}

const findFiles = step(1, {
  thought: 'First I list the files of the case.',
  action: 'findFiles',
  observation:
    '14 files in the case:\n- CardlyticsInc_MaintenanceAgreement.pdf (id=f1, v1, pdf, 22 pages)\n- affiliate-agreement.pdf (id=f2, v1, pdf, 9 pages)\nNext: search these files for the words of the question (retrieve, keyword_search, or grepCase for every occurrence).',
  summary: { tool: 'findFiles', count: 14 },
  timing: { model_ms: 1800, tool_ms: 612 },
});

const retrieveFocused = step(2, {
  thought: 'Search for the notice period.',
  action: 'retrieve',
  input: { query: 'notice period for termination', top_k: 5 },
  observation:
    '5 passages (hybrid search). Focused on Cardlytics Maintenance Agreement.pdf (the question names "Cardlytics"). Next: readSection({"file_id": "f1", "section": "s12"}) reads the whole section of the best passage.\n[cite:c1a2b3] Cardlytics Maintenance Agreement.pdf p.12 (strong): "Either party may terminate …"',
  summary: { tool: 'retrieve', count: 5, best_label: 'strong' },
  timing: { model_ms: 2100, tool_ms: 340 },
});

describe('describeStep', () => {
  it('findFiles: the count of documents listed', () => {
    expect(describeStep(findFiles)).toBe('Listed the 14 documents');
    expect(
      describeStep(step(1, { summary: { tool: 'findFiles', count: 1 }, observation: '1 file in the case:' })),
    ).toBe('Listed the one document');
    expect(
      describeStep(
        step(1, {
          input: { file_name_contains: 'lease' },
          summary: { tool: 'findFiles', count: 3 },
          observation: '3 files',
        }),
      ),
    ).toBe('Listed the 3 documents named ‘lease’');
  });

  it('a search: the query, the documents it focused on, the passages and the best label', () => {
    expect(describeStep(retrieveFocused)).toBe(
      'Searched ‘notice period for termination’ in Cardlytics Maintenance Agreement.pdf — 5 passages, best strong',
    );
    const filtered = step(3, {
      action: 'keyword_search',
      input: { query: '45 days', file_name: 'Lease.docx' },
      observation: '1 passage (keyword search).',
      summary: { tool: 'keyword_search', count: 1, best_label: 'good' },
    });
    expect(describeStep(filtered)).toBe('Searched ‘45 days’ (exact words) in Lease.docx — 1 passage, best good');
    const none = step(3, {
      action: 'vector_search',
      input: { query: 'indemnity cap' },
      observation: '0 passages (semantic search). Nothing matched: …',
      summary: { tool: 'vector_search', count: 0 },
    });
    expect(describeStep(none)).toBe('Searched ‘indemnity cap’ (by meaning) — 0 passages');
  });

  it('a step still running reads in the present', () => {
    expect(describeStep(step(2, { action: 'retrieve', input: { query: 'termination' } }))).toBe(
      'Searching ‘termination’…',
    );
    expect(describeStep(step(1, {}))).toBe('Listing the documents…');
    expect(describeStep(step(4, { action: 'readSection', input: { file_id: 'f1', section: 's12' } }))).toBe(
      'Reading a section…',
    );
  });

  it('grepCase and grepFile: the pattern and the matches', () => {
    const grep = step(3, {
      action: 'grepCase',
      input: { pattern: 'did not support him' },
      observation: '2 matches (decision.docx: 2). Coverage: 1 of 1 readable files searched.',
      summary: { tool: 'grepCase', count: 2 },
    });
    expect(describeStep(grep)).toBe('Searched every document for ‘did not support him’ — 2 matches');
    const grepFile = step(4, {
      action: 'grepFile',
      input: { file_id: 'f2', pattern: 'renew' },
      observation: '3 matches in affiliate-agreement.pdf.',
      summary: { tool: 'grepFile', count: 3 },
    });
    expect(describeStep(grepFile)).toBe('Searched affiliate-agreement.pdf for ‘renew’ — 3 matches');
  });

  it('readSection, readFile and outline name the document and the section from the observation', () => {
    const section = step(3, {
      action: 'readSection',
      input: { file_id: 'f1', section: 's12' },
      observation:
        'Cardlytics Maintenance Agreement.pdf v1 § 5 Termination (pp.12-13) [cite:c9]:\n5. TERMINATION. Either party may…',
      summary: { tool: 'readSection', count: 1 },
    });
    expect(describeStep(section)).toBe('Read section 5 Termination of Cardlytics Maintenance Agreement.pdf');
    const file = step(4, {
      action: 'readFile',
      input: { file_id: 'f2', offset: 0 },
      observation:
        'affiliate-agreement.pdf v1, characters 0-2000 of 31000 (pp.1-2; more from offset 2000) [cite:c10]:\nTHIS AGREEMENT…',
      summary: { tool: 'readFile', count: 1 },
    });
    expect(describeStep(file)).toBe('Read part of affiliate-agreement.pdf (pp. 1–2)');
    const outline = step(5, {
      action: 'outline',
      input: { file_id: 'f2' },
      observation: 'affiliate-agreement.pdf v1: 23 sections.\n- s1 1 Definitions (p.1)',
      summary: { tool: 'outline', count: 23 },
    });
    expect(describeStep(outline)).toBe('Looked at the outline of affiliate-agreement.pdf — 23 sections');
  });

  it('the final answer, an answer sent back, an unknown tool, a failed call, the extractive search', () => {
    expect(describeStep(step(4, { kind: 'final', action: 'final_answer', input: { answer: 'Thirty days.' } }))).toBe(
      'Answered',
    );
    expect(
      describeStep(
        step(2, {
          action: 'final_answer',
          input: { answer: 'All of them.' },
          observation: 'This question asks for every occurrence…',
          policy: 'exhaustive question: grepCase required before answering',
        }),
      ),
    ).toBe('Wrote an answer too early: it was sent back');
    expect(
      describeStep(
        step(2, {
          action: 'searchWeb',
          observation: 'Error: there is no tool named "searchWeb". Available tools: …',
          error: true,
        }),
      ),
    ).toBe('Tried a tool that does not exist (searchWeb)');
    expect(
      describeStep(
        step(2, {
          action: 'retrieve',
          input: { query: 'x' },
          error: true,
          observation: 'Error from retrieve: the index is closed.',
          summary: { tool: 'retrieve', count: 0 },
        }),
      ),
    ).toBe('Searched ‘x’ — 0 passages — failed');
    expect(
      describeStep(
        step(3, {
          action: 'find_passages',
          input: { query: 'notice period' },
          observation: 'Quoted 4 passages.',
          summary: { tool: 'find_passages', count: 4 },
        }),
      ),
    ).toBe('Found the best passages for ‘notice period’ — 4 passages');
  });

  it('a long query is shortened', () => {
    const long = 'a'.repeat(200);
    expect(describeStep(step(2, { action: 'retrieve', input: { query: long } }))).toMatch(/^Searching ‘a{79}…’…$/);
  });
});

describe('times', () => {
  it('in seconds with one decimal', () => {
    expect(formatSeconds(2412)).toBe('2.4 s');
    expect(formatSeconds(0)).toBe('0.0 s');
    expect(stepSeconds(findFiles)).toBe('2.4 s');
  });
});

describe('describePolicy', () => {
  it('known notes in plain words, joined notes each read, unknown ones kept', () => {
    expect(describePolicy(undefined)).toBeNull();
    expect(describePolicy('findFiles first: ran findFiles instead of retrieve')).toBe(
      'The documents are listed before anything else.',
    );
    expect(describePolicy('step budget of 5 reached: answer forced from what was found')).toBe(
      'The limit of 5 steps was reached: the answer uses what was found so far.',
    );
    expect(
      describePolicy(
        'the reply was cut off; the part of the answer that was written is kept; repeated call: answered from step 2 without running the tool again',
      ),
    ).toBe('The model’s reply was cut off; the part it wrote is kept. The same call as step 2: its result was reused.');
    expect(describePolicy("the model's answer was replaced by the best passages: the model repeated itself")).toBe(
      'The model’s answer was replaced by the best passages: the model repeated itself.',
    );
    expect(describePolicy('something new')).toBe('Something new.');
  });

  it("a turn the loop stopped, and a query it replaced, in plain words (with the engine's own notes)", () => {
    const stopped = {
      ...findFiles,
      index: 3,
      kind: 'final' as const,
      action: 'retrieve',
      input: { query: 'x' },
      observation: '',
      policy: `${REPEATED_CALL_STOP} (step 2)`,
    };
    expect(describeStep(stopped)).toBe('Stopped: the model asked again for the call of step 2');
    expect(describePolicy(stopped.policy)).toBe(
      'The model asked again for the call of step 2, so it was stopped; the passages found first stay.',
    );
    expect(describeStep({ ...stopped, policy: FORMAT_STOP })).toBe(
      'Stopped: the model’s replies did not follow the step format',
    );
    expect(describePolicy(offTopicNote('lease term ends'))).toBe(
      'The search “lease term ends” had nothing to do with the question, so the question itself was searched.',
    );
  });
});

describe('collapseSteps', () => {
  const search = (index: number, over: Partial<AgentStep> = {}) =>
    step(index, {
      action: 'retrieve',
      input: { query: 'term renewal' },
      observation: '3 passages (hybrid search).',
      summary: { tool: 'retrieve', count: 3, best_label: 'good' },
      timing: { model_ms: 1000, tool_ms: 200 },
      ...over,
    });
  const repeat = (index: number, of: number) =>
    search(index, {
      policy: `repeated call: answered from step ${of} without running the tool again`,
      observation: `You already made this exact call in step ${of}; do not repeat it. Call a different tool or answer. Its result was:\n3 passages (hybrid search).`,
      timing: { model_ms: 900, tool_ms: 0 },
    });

  it('folds consecutive repeats of one call into a line with a count', () => {
    const answer = step(5, {
      kind: 'final',
      action: 'final_answer',
      input: { answer: 'One year.' },
      timing: { model_ms: 500, tool_ms: 0 },
    });
    const lines = collapseSteps([findFiles, search(2), repeat(3, 2), repeat(4, 2), answer]);
    expect(lines.map((l) => l.text)).toEqual([
      'Listed the 14 documents',
      'Searched ‘term renewal’ — 3 passages, best good (3 times)',
      'Answered',
    ]);
    expect(lines[1]!.count).toBe(3);
    expect(lines[1]!.steps.map((s) => s.index)).toEqual([2, 3, 4]);
    expect(lines[1]!.ms).toBe(1200 + 900 + 900);
  });

  it('same action and input fold even without the repeat note; other inputs or other calls in between do not', () => {
    expect(collapseSteps([search(1), search(2, { input: { query: ' term renewal ' } })]).map((l) => l.count)).toEqual([
      2,
    ]);
    expect(collapseSteps([search(1), search(2, { input: { query: 'notice' } })]).map((l) => l.count)).toEqual([1, 1]);
    const lines = collapseSteps([search(1), { ...findFiles, index: 2 }, repeat(3, 1)]);
    expect(lines.map((l) => l.count)).toEqual([1, 1, 1]);
    expect(lines[2]!.text).toBe(
      'Searched ‘term renewal’ — 3 passages, best good — the same call as step 1, not run again',
    );
  });

  it('never folds the final answer', () => {
    const a = step(1, { kind: 'final', action: 'final_answer', input: { answer: 'x' } });
    expect(collapseSteps([a, { ...a, index: 2 }])).toHaveLength(2);
    expect(collapseSteps([])).toEqual([]);
  });
});
