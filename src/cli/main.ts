import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Engine } from '../core/engine';
import { appRoot } from '../core/util/app-root';
import { messageWithRemedy, toApiError } from '../shared/errors';
import { resolveHome } from './home';
import { safeIO, UsageError, type CliIO } from './io';
import { USAGE } from './usage';

/** The package's own `models/` folder (what an installer ships), when it exists. */
function bundledModelDirs(): string[] {
  const root = appRoot(import.meta.url);
  const dir = root && path.join(root, 'models');
  return dir && existsSync(dir) ? [dir] : [];
}

/** Options any command may take; commands ignore the ones they do not use. */
const OPTIONS = {
  home: { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  mode: { type: 'string' },
  k: { type: 'string' },
  model: { type: 'string' },
  'max-steps': { type: 'string' },
  'top-k': { type: 'string' },
  threshold: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'allow-path': { type: 'string', multiple: true },
  'allow-downloads-from': { type: 'string', multiple: true },
  'trust-proxy': { type: 'string', multiple: true },
  'allow-scripted-models': { type: 'boolean' },
  firm: { type: 'boolean' },
  admin: { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'session-idle': { type: 'string' },
  'session-max': { type: 'string' },
  session: { type: 'string' },
  id: { type: 'string' },
  link: { type: 'boolean' },
  out: { type: 'string' },
  format: { type: 'string' },
  turn: { type: 'string' },
  section: { type: 'string' },
  focus: { type: 'string' },
  all: { type: 'boolean' },
  extractive: { type: 'boolean' },
  'any-case': { type: 'boolean' },
  language: { type: 'string' },
  'password-file': { type: 'string' },
  'passphrase-stdin': { type: 'boolean' },
  searchable: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  query: { type: 'string' },
  person: { type: 'string' },
  file: { type: 'string', multiple: true },
  csv: { type: 'boolean' },
  none: { type: 'boolean' },
  docx: { type: 'string' },
  on: { type: 'boolean' },
  off: { type: 'boolean' },
  audit: { type: 'boolean' },
  case: { type: 'string' },
} as const;

/**
 * Run the CLI. Exit codes: 0 success, 2 usage error (one-line reason + usage on stderr),
 * 1 any other failure (one-line reason on stderr), 3 `ask --any-case` fits several cases (they are listed). With --json, stdout carries JSON only.
 */
export async function runCli(argv: string[], rawIO: CliIO): Promise<number> {
  // Names, reasons and answers come from files and models: printed for people, they are escaped.
  let io = safeIO(rawIO, false);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`casefile: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  io = safeIO(rawIO, values.json === true);
  if (values.version) {
    io.out((await import('../core/version')).VERSION);
    return 0;
  }
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  // Imported only now, so --help and --version load neither the commands nor the engine.
  const { commands } = await import('./commands/index');
  // Own keys only: "toString" or "constructor" is not a command.
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    io.err(`casefile: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  let engine: Engine | undefined;
  try {
    const { Engine } = await import('../core/engine');
    engine = await Engine.open({ home: resolveHome(values.home, io.env), bundledModelDirs: bundledModelDirs() });
    return await command(engine, { positionals: rest, values }, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`casefile: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    const api = toApiError(err);
    io.err(`casefile: ${messageWithRemedy(api, 'cli')}`);
    return api.code === 'invalid_input' ? 2 : 1;
  } finally {
    await engine?.close();
  }
}
