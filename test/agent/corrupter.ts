/**
 * The corrupter: a tool that fails silently, made on purpose. It alters one call of a scripted turn
 * over the small test case (helpers.ts) — its arguments (a file id or name the case does not have,
 * an empty query) or its result (passages of another document shuffled in, another section's text,
 * "no match" for words the document holds) — and judges whether the tool check caught it: the
 * trace says "Corrected: …" and what the model was shown holds nothing of the corrupted result.
 * Used by test/agent/tool-check.test.ts and bench/eval-toolcheck.ts.
 */
import { agentToolsFor, caseFactsFor } from '../../src/core/agent/agent-tools';
import { runAgent, type AgentRunResult } from '../../src/core/agent/loop';
import { ModelScript, ScriptedLanguageModel } from '../../src/core/agent/scripted';
import type { AgentTool, PassageItem, ToolOutcome } from '../../src/core/agent/types';
import { CitationLedger } from '../../src/core/domain/citation-ledger';
import type { Engine } from '../../src/core/engine';
import { openCaseTools } from '../../src/core/tools/index';
import { caseDocumentSource } from '../../src/core/tools/source';

export const CORRUPTIONS = [
  'wrong_file_id',
  'wrong_file_name',
  'empty_query',
  'other_doc_passages',
  'wrong_section',
  'empty_grep',
] as const;
export type CorruptionKind = (typeof CORRUPTIONS)[number];

export interface CaseFile {
  id: string;
  name: string;
}

/** One corrupted turn: the question, the model's script, the tools as corrupted, and the judge. */
export interface CorruptedTurn {
  kind: CorruptionKind;
  question: string;
  script: { steps: unknown[] };
  tools: (tools: AgentTool[]) => AgentTool[];
  /** Caught: the trace says so and the corrupted result reached neither the model nor the answer. */
  judge: (result: AgentRunResult) => { caught: boolean; why: string };
  /** The same turn without the corruption (for false alarms). */
  clean: { script: { steps: unknown[] } };
}

const FIND = { thought: 'See what the case holds.', action: 'findFiles', action_input: {} };
const ANSWER = { final: 'The documents say so [cite:{{cite}}].' };

/** What each document says and how to ask for it (a query, a grep pattern). */
const TOPICS = [
  {
    file: 'contracts/msa.txt',
    question: 'What notice is needed to terminate for convenience?',
    query: 'terminate convenience notice',
    pattern: 'sixty \\(60\\) days',
  },
  {
    file: 'contracts/msa.txt',
    question: 'When must invoices be paid?',
    query: 'invoices paid days',
    pattern: 'forty-five',
  },
  {
    file: 'contracts/msa.txt',
    question: 'How long is confidential information kept secret?',
    query: 'confidential information secret years',
    pattern: 'Confidential Information',
  },
  {
    file: 'medical/records summary.txt',
    question: 'What did the MRI of the knee show?',
    query: 'MRI knee meniscus',
    pattern: 'torn meniscus',
  },
  {
    file: 'medical/records summary.txt',
    question: 'When did the claimant last see Dr. Park?',
    query: 'claimant last saw Park knee',
    pattern: 'Helen Park',
  },
  {
    file: 'notes.md',
    question: 'When is the response brief due?',
    query: 'response brief deadline',
    pattern: 'October 1, 2023',
  },
] as const;

/** Sections of the MSA (outline ids) and one word each holds. */
const MSA_SECTIONS = [
  { id: 's2', ref: '1', word: 'Statement of Work' },
  { id: 's3', ref: '2', word: 'undisputed invoices' },
  { id: 's4', ref: '3', word: 'sixty (60) days' },
  { id: 's5', ref: '4', word: 'certified mail' },
  { id: 's6', ref: '5', word: 'five (5) years' },
] as const;

function fileOf(files: readonly CaseFile[], name: string): CaseFile {
  const f = files.find((x) => x.name === name);
  if (!f) throw new Error(`The test case has no ${name}.`);
  return f;
}

/**
 * A file id as a model gets it wrong: the file's name in its place, cut short, one character changed,
 * the path in its place — or, every fifth turn, the id of another document of the case (a real id, so
 * nothing in the call or its result contradicts it: the check is not expected to catch that one).
 */
function mangleId(f: CaseFile, i: number, files: readonly CaseFile[]): string {
  switch (i % 5) {
    case 4:
      return files.find((x) => x.id !== f.id && !x.name.endsWith('.pdf'))!.id;
    case 0:
      return f.name.slice(f.name.lastIndexOf('/') + 1);
    case 1:
      return f.id.slice(0, -2);
    case 2:
      return `${f.id.slice(0, 4)}${f.id[4] === 'x' ? 'y' : 'x'}${f.id.slice(5)}`;
    default:
      return f.name;
  }
}

/** A file name as a model gets it wrong: no folder, no extension, a typo, another case. */
function mangleName(name: string, i: number): string {
  switch (i % 4) {
    case 0:
      return name.slice(name.lastIndexOf('/') + 1);
    case 1:
      return name.replace(/\.[a-z]+$/, '');
    case 2:
      return `${name.slice(0, -2)}${name.slice(-1)}`;
    default:
      return name.toUpperCase();
  }
}

/** One tool of `tools` replaced by `run` (given the original). */
function replaceTool(
  tools: AgentTool[],
  name: string,
  run: (
    original: AgentTool,
    input: Record<string, unknown>,
    ctx: Parameters<AgentTool['run']>[1],
  ) => Promise<ToolOutcome>,
): AgentTool[] {
  return tools.map((t) => (t.name === name ? { ...t, run: (input, ctx) => run(t, input, ctx) } : t));
}

/** The step of the turn that ran `tool` after the inventory. */
const stepOf = (result: AgentRunResult, tool: string) => result.steps.find((s) => s.action === tool && s.index > 1);
const corrected = (policy: string | undefined) => /Corrected:/.test(policy ?? '');
/** Everything the model was shown in the turn. */
const shown = (result: AgentRunResult) => result.steps.map((s) => s.observation).join('\n');

/** A deterministic shuffle (the i-th turn shuffles the same way every run). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed + 1;
  for (let k = out.length - 1; k > 0; k--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (k + 1);
    [out[k], out[j]] = [out[j]!, out[k]!];
  }
  return out;
}

/**
 * The i-th corrupted turn of `kind` over the test case whose files are `files`. A result is corrupted
 * on the first call only (a transient failure), or on every call with `every`.
 */
export function corruptedTurn(
  kind: CorruptionKind,
  i: number,
  files: readonly CaseFile[],
  { every = false }: { every?: boolean } = {},
): CorruptedTurn {
  const topic = TOPICS[i % TOPICS.length]!;
  const file = fileOf(files, topic.file);
  const turn = (step: unknown) => ({ steps: [FIND, step, ANSWER] });
  const same = (tools: AgentTool[]) => tools;
  switch (kind) {
    case 'wrong_file_id': {
      const step = (id: string) => ({
        thought: 'Grep the file.',
        action: 'grepFile',
        action_input: { file_id: id, pattern: topic.pattern },
      });
      return {
        kind,
        question: topic.question,
        script: turn(step(mangleId(file, i, files))),
        clean: { script: turn(step(file.id)) },
        tools: same,
        judge: (r) => {
          const s = stepOf(r, 'grepFile');
          const ok =
            !!s && !s.error && s.input.file_id === file.id && corrected(s.policy) && (s.summary?.count ?? 0) > 0;
          return {
            caught: ok,
            why: s ? `${s.policy ?? 'no note'} → ${s.observation.slice(0, 80)}` : 'no grepFile step',
          };
        },
      };
    }
    case 'wrong_file_name': {
      const step = (name: string) => ({
        thought: 'Search that document.',
        action: 'retrieve',
        action_input: { query: topic.query, file_name: name },
      });
      return {
        kind,
        question: topic.question,
        script: turn(step(mangleName(file.name, i))),
        clean: { script: turn(step(file.name)) },
        tools: same,
        judge: (r) => {
          const s = stepOf(r, 'retrieve');
          const seen = r.seen.filter((p) => p.file_name !== file.name);
          const ok = !!s && !s.error && s.input.file_name === file.name && corrected(s.policy) && !seen.length;
          return {
            caught: ok,
            why: s ? `${s.policy ?? 'no note'}; input ${JSON.stringify(s.input)}` : 'no retrieve step',
          };
        },
      };
    }
    case 'empty_query': {
      const bad = ['', ' ', 'a', '?'][i % 4]!;
      const step = (query: string) => ({ thought: 'Search.', action: 'retrieve', action_input: { query } });
      return {
        kind,
        question: topic.question,
        script: turn(step(bad)),
        clean: { script: turn(step(topic.query)) },
        tools: same,
        judge: (r) => {
          const s = stepOf(r, 'retrieve');
          const ok = !!s && !s.error && s.input.query === topic.question && corrected(s.policy);
          return {
            caught: ok,
            why: s ? `${s.policy ?? 'no note'}; ${s.observation.slice(0, 80)}` : 'no retrieve step',
          };
        },
      };
    }
    case 'other_doc_passages': {
      const theirTopic = TOPICS.find((t) => t.file !== file.name && (i % 2 === 0 || t.file !== 'notes.md'))!;
      const other = fileOf(files, theirTopic.file);
      const injected: PassageItem[] = [];
      const step = {
        thought: 'Search that document.',
        action: 'retrieve',
        action_input: { query: topic.query, file_name: file.name },
      };
      let calls = 0;
      return {
        kind,
        question: topic.question,
        script: turn(step),
        clean: { script: turn(step) },
        // The first call's passages are shuffled with passages of another document (a later call is honest).
        tools: (tools) =>
          replaceTool(tools, 'retrieve', async (original, input, ctx) => {
            const real = await original.run(input, ctx);
            if (calls++ > 0 && !every) return real;
            const foreign = await original.run({ ...input, file_name: other.name, query: theirTopic.query }, ctx);
            const theirs = (foreign.items ?? []).slice(0, 3);
            injected.push(...theirs);
            const items = shuffled([...(real.items ?? []).slice(0, 2), ...theirs], i);
            return { ...real, items, count: items.length };
          }),
        judge: (r) => {
          const s = stepOf(r, 'retrieve');
          const leaked = injected.filter(
            (p) => shown(r).includes(`[cite:${p.cite}]`) || r.seen.some((x) => x.cite === p.cite),
          );
          const cited = r.citations.filter((c) => c.file_name && c.file_name !== file.name);
          const ok = !!s && corrected(s.policy) && injected.length > 0 && !leaked.length && !cited.length;
          return {
            caught: ok,
            why: `${s?.policy ?? 'no note'}; ${leaked.length} injected passage(s) shown, ${cited.length} cited`,
          };
        },
      };
    }
    case 'wrong_section': {
      const msa = fileOf(files, 'contracts/msa.txt');
      const asked = MSA_SECTIONS[i % MSA_SECTIONS.length]!;
      const given = MSA_SECTIONS[(i + 1 + (i % 3)) % MSA_SECTIONS.length]!;
      const step = {
        thought: 'Read the section.',
        action: 'readSection',
        action_input: { file_id: msa.id, section: i % 2 ? asked.id : asked.ref },
      };
      let calls = 0;
      return {
        kind,
        question: `What does section ${asked.ref} of the MSA say?`,
        script: turn(step),
        clean: { script: turn(step) },
        // The first read returns another section (with its own true heading); a later read is honest.
        tools: (tools) =>
          replaceTool(tools, 'readSection', async (original, input, ctx) =>
            original.run(calls++ === 0 || every ? { ...input, section: given.id } : input, ctx),
          ),
        judge: (r) => {
          const s = stepOf(r, 'readSection');
          const text = shown(r);
          const ok =
            !!s && corrected(s.policy) && s.observation.includes(asked.word) && !s.observation.includes(given.word);
          return {
            caught: ok && text.includes(asked.word),
            why: `${s?.policy ?? 'no note'}; ${s?.observation.slice(0, 100)}`,
          };
        },
      };
    }
    case 'empty_grep': {
      const whole = i % 2 === 0;
      const step = whole
        ? { thought: 'Grep the case.', action: 'grepCase', action_input: { pattern: topic.pattern } }
        : { thought: 'Grep the file.', action: 'grepFile', action_input: { file_id: file.id, pattern: topic.pattern } };
      const tool = step.action;
      let calls = 0;
      return {
        kind,
        question: topic.question,
        script: turn(step),
        clean: { script: turn(step) },
        // The first grep reports no match at all (a later one is honest).
        tools: (tools) =>
          replaceTool(tools, tool, async (original, input, ctx) => {
            const real = await original.run(input, ctx);
            if (calls++ > 0 && !every) return real;
            return { text: '0 matches.', items: [], count: 0, citations: [], coverage: real.coverage };
          }),
        judge: (r) => {
          const s = stepOf(r, tool);
          const ok = !!s && corrected(s.policy) && (s.summary?.count ?? 0) > 0;
          return { caught: ok, why: `${s?.policy ?? 'no note'}; ${s?.observation.slice(0, 80)}` };
        },
      };
    }
  }
}

/** A turn's trace has a correction note (on a clean turn: a false alarm). */
export function anyCorrection(result: AgentRunResult): boolean {
  return result.steps.some((s) => corrected(s.policy));
}

/** The files of the test case (id and name). */
export async function caseFiles(engine: Engine, caseId: string): Promise<CaseFile[]> {
  return (await (await openCaseTools(engine, caseId)).inventory()).map((f) => ({ id: f.id, name: f.name }));
}

/**
 * Play one turn with the scripted model over the real case: corrupted (the turn's script and tools)
 * or clean; `check: false` runs it without the tool check (what a silent failure did before).
 */
export async function playTurn(
  engine: Engine,
  caseId: string,
  turn: CorruptedTurn,
  options: { corrupt?: boolean; check?: boolean } = {},
): Promise<AgentRunResult> {
  const { corrupt = true, check = true } = options;
  const ledger = new CitationLedger();
  const caseTools = await openCaseTools(engine, caseId, { ledger });
  const tools = agentToolsFor(caseTools);
  const docs = caseDocumentSource(await engine.openCases.open(caseId));
  return runAgent({
    model: new ScriptedLanguageModel(ModelScript.parse(corrupt ? turn.script : turn.clean.script)),
    format: 'json',
    tools: corrupt ? turn.tools(tools) : tools,
    question: turn.question,
    citations: ledger,
    sourceText: async (f, v) => (await docs.readText(f, v))?.text ?? null,
    ...(check ? { facts: caseFactsFor(caseTools) } : {}),
  });
}
