import path from 'node:path';
import type { Engine } from '../../core/engine';
import type { ModelInfo, RecommendedModel } from '../../shared/contract/models';
import { formatBytes, printable, table, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

function row(m: ModelInfo): string[] {
  return [
    m.is_default ? `${m.id} *` : m.id,
    m.kind,
    m.format,
    formatBytes(m.bytes),
    m.quantization ?? '-',
    m.context_length ? String(m.context_length) : '-',
    m.dimension ? String(m.dimension) : '-',
    m.source,
    m.used_by.length ? m.used_by.map((c) => c.name).join(', ') : '-',
  ];
}

/** What being the default means for a model of its kind. */
function defaultLine(m: ModelInfo): string {
  return m.kind === 'chat'
    ? `${m.id} is the default chat model for questions.`
    : `${m.id} is the default embedding model for new cases.`;
}

/** One recommended model, with what it needs: "  qwen2.5-1.5b-instruct (chat, about 1.1 GB, needs 4 GB of memory) …". */
function recommendedLine(r: RecommendedModel): string {
  const size = r.approx_size_mb
    ? `about ${r.approx_size_mb >= 1000 ? `${(r.approx_size_mb / 1000).toFixed(1)} GB` : `${r.approx_size_mb} MB`}`
    : null;
  const ram = r.min_ram_gb ? `needs ${r.min_ram_gb} GB of memory` : null;
  return `  ${r.id} (${[r.kind, size, ram].filter(Boolean).join(', ')})${r.download_url ? `: casefile models download ${r.download_url}` : ''}`;
}

/** `models list`: the installed models as a table, the defaults, and the recommended models not installed. */
async function listModels(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length) throw new UsageError('models list takes no arguments');
  const list = await engine.router.call('models.list', {});
  if (json) {
    io.out(wireJson(list));
    return 0;
  }
  if (list.models.length === 0)
    io.out(
      `No models installed. Import one with: casefile models import <file.gguf | model folder>\n(models folder: ${list.models_dir})`,
    );
  else
    io.out(
      table(['ID', 'KIND', 'FORMAT', 'SIZE', 'QUANT', 'CONTEXT', 'DIM', 'SOURCE', 'USED BY'], list.models.map(row)),
    );
  io.out(
    list.semantic.available
      ? `\nDefault embedding model (*): ${list.default_embedding_model}`
      : `\nSemantic search is off: ${list.semantic.reason}.\nImport an embedding model with: casefile models import <model folder>`,
  );
  if (list.default_chat_model) io.out(`Default chat model (*): ${list.default_chat_model}`);
  const missing = list.recommended.filter((r) => r.recommended && !r.installed);
  if (missing.length) io.out(`\nRecommended, not installed:\n${missing.map(recommendedLine).join('\n')}`);
  return 0;
}

/** `models import <path> [--id ID] [--link]`: check and import a model file or folder. */
async function importModel(engine: Engine, rest: string[], args: Parsed, json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 1)
    throw new UsageError('models import takes exactly one <path> (a .gguf file or a transformers.js model folder)');
  const id = typeof args.values.id === 'string' ? args.values.id : undefined;
  if (!json) io.err(`Checking ${printable(rest[0]!)} ...`);
  const result = await engine.router.call('models.import', {
    path: path.resolve(rest[0]!),
    ...(id ? { id } : {}),
    mode: args.values.link === true ? 'link' : 'copy',
  });
  if (json) {
    io.out(wireJson(result));
    return 0;
  }
  const m = result.model;
  const what = [
    m.kind,
    m.format,
    formatBytes(m.bytes),
    m.quantization,
    m.dimension ? `${m.dimension} dimensions` : null,
    m.context_length ? `context ${m.context_length}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  io.out(
    result.already_installed
      ? `Already installed: ${m.id} (${what})`
      : `Imported ${m.id} (${what}) into ${printable(m.path)}`,
  );
  if (m.is_default) io.out(defaultLine(m));
  return 0;
}

/** `models download <source> [--id ID]`: download a model, its progress on stderr (one line rewritten in place on a terminal). */
async function downloadModel(engine: Engine, rest: string[], args: Parsed, json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 1)
    throw new UsageError('models download takes exactly one <url | owner/repo | owner/repo/file.gguf>');
  const id = typeof args.values.id === 'string' ? args.values.id : undefined;
  let lastLine = 0;
  const off = engine.events.on('models.progress', (p) => {
    if (json) return;
    const pct = p.total_bytes ? ` (${Math.floor((p.received_bytes / p.total_bytes) * 100)}%)` : '';
    const line = `${p.file}: ${formatBytes(p.received_bytes)}${p.total_bytes ? ` of ${formatBytes(p.total_bytes)}` : ''}${pct}`;
    // A line rewritten in place goes straight to the terminal (CliIO escapes control characters).
    if (io.isTTY) process.stderr.write(`\u001b[1A\u001b[2K${printable(line)}\n`);
    else if (Date.now() - lastLine > 5000 || p.received_bytes === p.total_bytes) {
      lastLine = Date.now();
      io.err(line);
    }
  });
  if (!json) io.err(`Downloading ${rest[0]} ...${io.isTTY ? '\n' : ''}`);
  try {
    const result = await engine.router.call('models.download', { source: rest[0], ...(id ? { id } : {}) });
    const m = result.model;
    if (json) io.out(wireJson(result));
    else {
      io.out(
        result.already_installed
          ? `Already installed: ${m.id}`
          : `Downloaded and installed ${m.id} (${m.kind}, ${m.format}, ${formatBytes(m.bytes)}) into ${printable(m.path)}`,
      );
      if (m.is_default) io.out(defaultLine(m));
    }
  } finally {
    off();
  }
  return 0;
}

/** `models default <id>`: the default embedding model for new cases, or chat model for questions. */
async function setDefaultModel(engine: Engine, rest: string[], json: boolean, io: CliIO): Promise<number> {
  if (rest.length !== 1) throw new UsageError('models default takes exactly one <model-id>');
  const list = await engine.router.call('models.setDefault', { model_id: rest[0] });
  const chat = list.models.find((m) => m.id === rest[0])?.kind === 'chat';
  if (json)
    io.out(
      wireJson({ default_embedding_model: list.default_embedding_model, default_chat_model: list.default_chat_model }),
    );
  else
    io.out(
      chat
        ? `Default chat model for questions: ${list.default_chat_model}`
        : `Default embedding model for new cases: ${list.default_embedding_model}`,
    );
  return 0;
}

/**
 * `casefile models list [--json]`, `casefile models import <path> [--id ID] [--link] [--json]`,
 * `casefile models download <url | owner/repo | owner/repo/file.gguf> [--id ID] [--json]`,
 * `casefile models default <id> [--json]` (an embedding model: for new cases; a chat model: for questions that name none).
 */
export async function modelsCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [sub, ...rest] = args.positionals;
  const json = args.values.json === true;
  switch (sub) {
    case 'list':
      return listModels(engine, rest, json, io);
    case 'import':
      return importModel(engine, rest, args, json, io);
    case 'download':
      return downloadModel(engine, rest, args, json, io);
    case 'default':
      return setDefaultModel(engine, rest, json, io);
    default:
      throw new UsageError(
        sub
          ? `unknown models command "${sub}"`
          : 'models needs a command: list, import <path>, download <source> or default <id>',
      );
  }
}
