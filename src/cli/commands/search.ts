import type { Engine } from '../../core/engine';
import type { SearchFocus, SearchMode } from '../../shared/contract/search';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const MODES: SearchMode[] = ['hybrid', 'keyword', 'vector'];

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "Focused on 2 documents the question names (“Zounds”, “Hearing”): A.pdf, B.pdf. --focus off searches the whole case." */
export function focusLine(focus: SearchFocus): string {
  const names = focus.files.map((f) => printable(f.file_name)).join(', ');
  const words = focus.matched.map((w) => `“${printable(w)}”`).join(', ');
  const what = focus.files.length === 1 ? 'the document' : `${focus.files.length} documents`;
  const widened = focus.widened ? ' They gave fewer results than asked; the rest come from the whole case.' : '';
  return `Focused on ${what} the question names (${words}): ${names}.${widened} --focus off searches the whole case.`;
}

function formatScore(mode: SearchMode, score: number): string {
  return mode === 'hybrid' ? score.toFixed(4) : mode === 'vector' ? score.toFixed(3) : score.toFixed(2);
}

/** `casefile search <case> <query> [--mode hybrid|keyword|vector] [--k N] [--focus auto|off] [--json]` */
export async function searchCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...words] = args.positionals;
  if (!caseRef || words.length === 0) throw new UsageError('search takes <case> <query>');
  const mode = (args.values.mode ?? 'hybrid') as SearchMode;
  if (!MODES.includes(mode))
    throw new UsageError(`--mode must be hybrid, keyword or vector (got "${String(args.values.mode)}")`);
  const kRaw = args.values.k;
  const k = kRaw === undefined ? 10 : Number(kRaw);
  if (!Number.isInteger(k) || k < 1 || k > 200)
    throw new UsageError(`--k must be a whole number from 1 to 200 (got "${String(kRaw)}")`);
  const focus = args.values.focus ?? 'auto';
  if (focus !== 'auto' && focus !== 'off') throw new UsageError(`--focus must be auto or off (got "${String(focus)}")`);
  const target = await engine.cases.resolve(caseRef);
  const res = await engine.router.call('search', { case_id: target.id, query: words.join(' '), mode, k, focus });
  if (args.values.json === true) {
    io.out(
      wireJson({
        results: res.results.map((r) => ({
          chunk_id: r.chunk_id,
          file_name: r.file_name,
          version: r.version,
          pages: r.pages,
          text: r.text,
          score: r.score,
          label: r.label,
          citation: r.citation,
          ...(r.section_path ? { section_path: r.section_path } : {}),
          ...(r.document_title ? { document_title: r.document_title } : {}),
          ...(r.place ? { place: r.place } : {}),
        })),
        semantic: res.semantic,
        ...(res.semantic_reason ? { semantic_reason: res.semantic_reason } : {}),
        ...(res.focus ? { focus: res.focus } : {}),
      }),
    );
    return 0;
  }
  if (!res.semantic) {
    io.err(
      `Semantic search is off: ${res.semantic_reason ?? 'no embedding model'}.${mode === 'hybrid' ? ' Showing keyword results.' : ''}`,
    );
    // The CLI has no background catch-up: say how to make the case's waiting passages searchable by meaning.
    if ((await engine.router.call('index.vectors', { case_id: target.id })).state === 'needed')
      io.err(`Make its passages searchable by meaning now with: casefile reindex "${printable(target.name)}"`);
  }
  if (res.focus) io.out(focusLine(res.focus));
  if (res.results.length === 0) {
    io.out(`No results in "${printable(target.name)}" for: ${printable(words.join(' '))}`);
    return 0;
  }
  const lines: string[] = [];
  const shown: SearchMode = res.mode === 'hybrid' && !res.semantic ? 'keyword' : res.mode;
  res.results.forEach((r, i) => {
    const pages = r.place ?? (r.pages[0] === r.pages[1] ? `p. ${r.pages[0]}` : `pp. ${r.pages[0]}–${r.pages[1]}`);
    const parts = [`${r.label} ${formatScore(shown, r.score)}`];
    if (shown === 'hybrid') {
      if (r.scores.keyword) parts.push(`bm25 ${r.scores.keyword.score.toFixed(2)} #${r.scores.keyword.rank}`);
      if (r.scores.vector) parts.push(`cos ${r.scores.vector.score.toFixed(3)} #${r.scores.vector.rank}`);
    }
    lines.push(`${i + 1}. [${r.citation.id}] ${printable(r.file_name)} v${r.version}, ${pages}  (${parts.join(', ')})`);
    if (r.section_path) lines.push(`   § ${printable(r.section_path.join(' › '))}`);
    lines.push(`   ${printable(oneLine(r.text, 200))}`);
  });
  io.out(lines.join('\n'));
  return 0;
}
