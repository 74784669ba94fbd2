import type { Engine } from '../../core/engine';
import type { CliIO } from '../io';
import { askCommand } from './ask';
import { auditCommand } from './audit';
import { casesCommand, type Parsed } from './cases';
import { batesCommand } from './bates';
import { chatCommand } from './chat';
import { chronologyCommand } from './chronology';
import { filesCommand } from './files';
import { firmCommand } from './firm';
import { ingestCommand, retryCommand, unlockCommand } from './ingest';
import { modelsCommand } from './models';
import { outlineCommand } from './outline';
import { reindexCommand } from './reindex';
import { searchCommand } from './search';
import { serveCommand } from './serve';
import { watchCommand } from './watch';

export type { Parsed };
export type Command = (engine: Engine, args: Parsed, io: CliIO) => Promise<number>;

/** Top-level commands; each feature adds its own entry here. */
export const commands: Record<string, Command> = {
  cases: casesCommand,
  ingest: ingestCommand,
  retry: retryCommand,
  unlock: unlockCommand,
  files: filesCommand,
  outline: outlineCommand,
  chronology: chronologyCommand,
  bates: batesCommand,
  models: modelsCommand,
  search: searchCommand,
  reindex: reindexCommand,
  serve: serveCommand,
  watch: watchCommand,
  ask: askCommand,
  chat: chatCommand,
  firm: firmCommand,
  audit: auditCommand,
};
