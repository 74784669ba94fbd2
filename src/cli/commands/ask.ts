import type { Engine } from '../../core/engine';
import type { AgentStep, ChatAnswer, CheckedCitation, RetrievalDefaults } from '../../shared/contract/chat';
import { AGENT_MAX_STEPS, AGENT_TOP_K_MAX } from '../../shared/retrieval';
import { newId } from '../../core/util/ids';
import {
  checkWords,
  citationPlace,
  isGreen,
  ocrCitationNote,
  quoteText,
  SUPPORT_WORDS,
  supportOf,
} from '../../shared/citation-text';
import { CasefileError } from '../../shared/errors';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function stepLines(s: AgentStep): string[] {
  const lines: string[] = [];
  if (s.kind === 'final') {
    lines.push(`Step ${s.index} · final answer${s.policy ? `  [${s.policy}]` : ''}`);
    if (s.thought) lines.push(`  Thought: ${oneLine(s.thought, 300)}`);
    return lines;
  }
  lines.push(
    `Step ${s.index} · ${s.action} ${oneLine(JSON.stringify(s.input), 200)}${s.policy ? `  [${s.policy}]` : ''}`,
  );
  if (s.thought) lines.push(`  Thought: ${oneLine(s.thought, 300)}`);
  const sum = s.summary
    ? `${s.summary.count} result${s.summary.count === 1 ? '' : 's'}${s.summary.best_label ? `, best ${s.summary.best_label}` : ''}`
    : '';
  lines.push(`  Observation${s.error ? ' (error)' : ''}${sum ? ` — ${sum}` : ''}: ${oneLine(s.observation, 240)}`);
  lines.push(
    `  (${Math.round(s.timing.model_ms)} ms model, ${Math.round(s.timing.tool_ms)} ms tool, ${s.tokens.input} in / ${s.tokens.output} out tokens)`,
  );
  return lines;
}

function citationLine(c: CheckedCitation, i: number): string {
  const where = c.file_name ? printable(citationPlace(c)) : 'unknown source';
  const support = supportOf(c);
  const mark = isGreen(c) ? checkWords(c).toLowerCase() : SUPPORT_WORDS[support].toUpperCase();
  const quote = c.span?.text ? `\n      “${printable(quoteText(c, 200))}”` : '';
  const ocr = ocrCitationNote(c);
  return `  [${i + 1}] cite:${c.id}  ${where} — ${mark}: ${printable(c.reason)}${ocr ? `\n      (${ocr})` : ''}${quote}`;
}

/** The `--json` shape of an answer (documented in docs/cli.md; keep it stable: extend, never rename). */
export function answerJson(r: ChatAnswer): Record<string, unknown> {
  return {
    answer: r.answer,
    citations: r.citations.map((c) => ({
      id: c.id,
      file_name: c.file_name ?? null,
      pages: c.pages ?? [],
      verified: c.verified,
      reason: c.reason,
      support: supportOf(c),
      ...(c.relevance ? { relevance: c.relevance } : {}),
      quote: c.span?.text ?? null,
      title: c.title ?? null,
      ...(c.ocr_confidence !== undefined ? { ocr_confidence: c.ocr_confidence } : {}),
      ...(c.place ? { place: c.place } : {}),
    })),
    steps: r.steps.map((s) => ({ thought: s.thought, action: s.action, input: s.input, observation: s.observation })),
    coverage: r.coverage,
    grounded: r.grounded,
    answer_kind: r.answer_kind ?? 'agent',
    ...(r.fallback ? { fallback: r.fallback } : {}),
    ...(r.limited_to ? { limited_to: r.limited_to } : {}),
    timing: {
      total_ms: Math.round(r.timing.total_ms),
      ...(r.timing.first_answer_ms !== undefined ? { first_answer_ms: Math.round(r.timing.first_answer_ms) } : {}),
    },
  };
}

/** `--file NAME` (repeatable): each a file id or exact name of the case, as ids; an unknown or ambiguous name is refused in plain words. */
async function fileIdsOf(
  engine: Engine,
  target: { id: string; name: string },
  refs: string[],
): Promise<string[] | undefined> {
  if (!refs.length) return undefined;
  const { files } = await engine.router.call('files.list', { case_id: target.id });
  return refs.map((ref) => {
    const byName = files.filter((f) => f.name === ref);
    const file = files.find((f) => f.id === ref) ?? (byName.length === 1 ? byName[0] : undefined);
    if (file) return file.id;
    throw new CasefileError(
      'not_found',
      byName.length > 1
        ? `${byName.length} files are named "${ref}"; give the file id instead (casefile files "${target.name}" --json).`
        : `No file "${ref}" in case "${target.name}" (see: casefile files "${target.name}").`,
    );
  });
}

/** The agent's settings from the flags: `--max-steps`, and `--top-k` and `--threshold` as defaults for its searches. */
function agentOptions(args: Parsed): { maxSteps: number | undefined; retrieval: RetrievalDefaults } {
  const raw = args.values['max-steps'];
  const maxSteps = raw === undefined ? undefined : Number(raw);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > AGENT_MAX_STEPS)) {
    throw new UsageError(`--max-steps must be a whole number from 1 to ${AGENT_MAX_STEPS} (got "${String(raw)}")`);
  }
  const retrieval: RetrievalDefaults = {};
  const rawTopK = args.values['top-k'];
  if (rawTopK !== undefined) {
    const topK = Number(rawTopK);
    if (!Number.isInteger(topK) || topK < 1 || topK > AGENT_TOP_K_MAX)
      throw new UsageError(`--top-k must be a whole number from 1 to ${AGENT_TOP_K_MAX} (got "${String(rawTopK)}")`);
    retrieval.top_k = topK;
  }
  const rawThreshold = args.values.threshold;
  if (rawThreshold !== undefined) {
    const threshold = typeof rawThreshold === 'string' && rawThreshold.trim() !== '' ? Number(rawThreshold) : NaN;
    if (!Number.isFinite(threshold))
      throw new UsageError(`--threshold must be a number (got "${String(rawThreshold)}")`);
    retrieval.score_threshold = threshold;
  }
  return { maxSteps, retrieval };
}

/** Print the turn's trace as it happens: its start, the passages found first, each step; returns the unsubscribe functions. */
function followTurn(engine: Engine, io: CliIO, turnId: string, caseName: string): Array<() => void> {
  return [
    engine.events.on('agent.turn', (e) => {
      if (e.turn_id !== turnId) return;
      if (e.phase === 'started') {
        io.out(`Asking ${printable(e.model)} about "${printable(caseName)}"…`);
        if (e.limited_to) io.out(`${printable(e.limited_to.line)}.`);
      } else io.out(`Standalone question: ${printable(e.standalone_question ?? '')}`);
    }),
    engine.events.on('agent.passages', (e) => {
      if (e.turn_id !== turnId) return;
      io.out(
        `\nPassages found in ${(e.first_answer_ms / 1000).toFixed(1)} s; ${printable(e.model)} is writing an answer (they stay unless its answer verifies):`,
      );
      io.out(`${printable(e.answer, { lines: true })}\n`);
    }),
    engine.events.on('agent.step', (e) => {
      if (e.turn_id !== turnId || e.phase === 'action') return;
      io.out(stepLines(e.step).join('\n'));
    }),
  ];
}

/** The answer as text: the answer itself, its citations, whether it is grounded, its coverage and its session. */
function printAnswer(io: CliIO, r: ChatAnswer): void {
  io.out('');
  if (r.status === 'cancelled') io.out('Cancelled. The partial trace above was kept in the session.');
  io.out('Answer:');
  io.out(r.answer || '(no answer)');
  if (r.fallback)
    io.out(
      `\n(The model's own answer was not shown: ${printable(r.fallback.reason)}. It wrote: "${printable(oneLine(r.fallback.model_answer, 200))}")`,
    );
  io.out('');
  if (r.citations.length) {
    io.out('Citations:');
    r.citations.forEach((c, i) => io.out(citationLine(c, i)));
  } else io.out('Citations: none');
  io.out(
    r.answer_kind === 'no_documents'
      ? 'Grounded: no — nothing in this case can be searched yet.'
      : r.grounded
        ? 'Grounded: yes (the cited passages quote or support its sentences)'
        : r.citations.some((c) => c.verified)
          ? 'Grounded: NO — some sentences are not supported by the passages they cite; check them before relying on this answer.'
          : 'Grounded: NO — no sentence of this answer is supported by the passage it cites; do not rely on it.',
  );
  io.out(`Coverage: ${r.coverage.note}`);
  io.out(`Session: ${r.session_id} (continue with --session ${r.session_id})`);
}

/** Exit code of `ask --any-case` when the question fits several cases: the user names one and asks again. */
export const EXIT_WHICH_CASE = 3;

/**
 * `--any-case`: the case the question means, from the cases' summaries (`cases.detect`); said
 * before the answer ("Case: …"). When it fits several about equally (or names none), the cases to
 * choose from are listed with their summary lines and the exit code is {@link EXIT_WHICH_CASE}.
 */
async function detectTarget(
  engine: Engine,
  question: string,
  json: boolean,
  io: CliIO,
): Promise<{ id: string; name: string } | number> {
  const found = await engine.router.call('cases.detect', { question });
  const chosen = found.candidates.find((c) => c.case_id === found.chosen);
  if (chosen) {
    if (!json) io.out(`Case: ${printable(chosen.name)}${found.reason ? ` — ${printable(found.reason)}` : ''}`);
    return { id: chosen.case_id, name: chosen.name };
  }
  if (!found.candidates.length)
    throw CasefileError.withRemedy('not_found', 'There are no cases yet.', {
      app: 'Create a case and add its documents first.',
      cli: 'Create one and add its documents: casefile cases create <name>, then casefile ingest <case> <folder>.',
    });
  if (json) {
    io.out(wireJson({ ambiguous: true, reason: found.reason, candidates: found.candidates }));
    return EXIT_WHICH_CASE;
  }
  io.out(`Which case do you mean? ${printable(found.reason)}`);
  found.candidates.forEach((c, i) => io.out(`  ${i + 1}. ${printable(c.name)} — ${printable(c.line)}`));
  const q = question.replace(/"/g, '\\"');
  io.out(`Ask again naming the case: casefile ask "${printable(found.candidates[0]!.name)}" "${printable(q)}"`);
  return EXIT_WHICH_CASE;
}

/**
 * `casefile ask <case> <question> | ask --any-case <question>` `[--extractive] [--model ID|PATH] [--max-steps N] [--top-k N] [--threshold X] [--file NAME]... [--session ID] [--json]`:
 * the trace as it happens, then the answer with its citations and their verification. `--top-k` and
 * `--threshold` are defaults for the agent's searches (the model's own arguments win). `--file`
 * (repeatable) limits every search of the question to those documents.
 * `--extractive` (or no chat model installed): the best passages quoted, no model.
 */
export async function askCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const anyCase = args.values['any-case'] === true;
  const [caseRef, ...words] = anyCase ? ['', ...args.positionals] : args.positionals;
  if (anyCase ? words.length === 0 : !caseRef || words.length === 0)
    throw new UsageError(anyCase ? 'ask --any-case takes <question>' : 'ask takes <case> <question>');
  const json = args.values.json === true;
  const { maxSteps, retrieval } = agentOptions(args);
  const model = typeof args.values.model === 'string' ? args.values.model : undefined;
  const sessionId = typeof args.values.session === 'string' ? args.values.session : undefined;
  const found = anyCase ? await detectTarget(engine, words.join(' '), json, io) : await engine.cases.resolve(caseRef!);
  if (typeof found === 'number') return found;
  const target = found;
  const rawFiles = args.values.file;
  const fileIds = await fileIdsOf(
    engine,
    target,
    Array.isArray(rawFiles) ? rawFiles.map(String) : typeof rawFiles === 'string' ? [rawFiles] : [],
  );
  const turnId = newId('t', 12);

  const offs = json ? [] : followTurn(engine, io, turnId, target.name);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let r: ChatAnswer;
  try {
    r = await engine.router.call(
      'chat.ask',
      {
        case_id: target.id,
        question: words.join(' '),
        turn_id: turnId,
        ...(model ? { model } : {}),
        ...(maxSteps ? { max_steps: maxSteps } : {}),
        ...(sessionId ? { session_id: sessionId } : {}),
        ...(Object.keys(retrieval).length ? { retrieval } : {}),
        ...(args.values.extractive === true ? { mode: 'extractive' as const } : {}),
        ...(fileIds ? { file_ids: fileIds } : {}),
      },
      { signal: controller.signal },
    );
  } finally {
    process.off('SIGINT', onSigint);
    for (const off of offs) off();
  }
  if (json) {
    io.out(wireJson({ ...answerJson(r), ...(anyCase ? { case: { id: target.id, name: target.name } } : {}) }));
    return r.status === 'done' ? 0 : 1;
  }
  printAnswer(io, r);
  return r.status === 'done' ? 0 : 1;
}
