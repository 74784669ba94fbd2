/**
 * What the audit trail records of each operation of the contract, in one table: the action it is
 * and the details worth keeping (the words searched, the question asked, the document and page
 * opened, the export's format), or why it is not recorded. A new operation must be added here
 * (the type and test/server/audit-ops.test.ts both insist). Passwords and file contents never are.
 */
import type { AuditKind } from '../core/audit/entry';
import type { AuditLog } from '../core/audit/log';
import { contract, isOpName, type OpName, type OpParsed } from '../shared/contract/index';
import { CasefileError } from '../shared/errors';
import type { Actor } from './actor';

type Recorded<N extends OpName> = { kind: AuditKind; what?: (input: OpParsed<N>) => Record<string, unknown> };
type AuditRule<N extends OpName> = Recorded<N> | { notRecorded: string };

const doc = (i: { file_id: string; version?: number }) => ({ file_id: i.file_id, version: i.version });
const NO_MATTER = 'touches no matter';

export const AUDITED_OPS: { [N in OpName]: AuditRule<N> } = {
  'app.info': { notRecorded: `the app's version and data folder; ${NO_MATTER}` },
  'cases.list': { kind: 'list_cases', what: (i) => ({ query: i.query }) },
  'cases.get': { kind: 'open_case' },
  'cases.create': { kind: 'change_case', what: (i) => ({ change: 'create', name: i.name }) },
  'cases.rename': { kind: 'change_case', what: (i) => ({ change: 'rename', name: i.name }) },
  'cases.setOcr': { kind: 'change_case', what: (i) => ({ change: 'ocr', enabled: i.enabled, language: i.language }) },
  'cases.setDateOrder': { kind: 'change_case', what: (i) => ({ change: 'date order', day_first: i.day_first }) },
  'cases.setWatch': {
    kind: 'change_case',
    what: (i) => ({ change: 'follow folders', enabled: i.enabled, folders: i.folders }),
  },
  'cases.detect': { kind: 'search', what: (i) => ({ question: i.question, across: 'every case' }) },
  'cases.delete': { kind: 'change_case', what: () => ({ change: 'delete' }) },
  'ingest.start': { kind: 'add_files', what: (i) => ({ paths: i.paths }) },
  'ingest.cancel': { kind: 'change_case', what: () => ({ change: 'cancel adding files' }) },
  'ingest.resume': { kind: 'change_case', what: () => ({ change: 'resume adding files' }) },
  'ingest.status': { notRecorded: 'progress polled while files are added; reads no document' },
  'index.reindex': { kind: 'change_case', what: (i) => ({ change: 'reindex', all: i.all }) },
  'index.vectors': { notRecorded: 'progress of making passages searchable by meaning; reads no document' },
  'index.catchUp': { kind: 'change_case', what: () => ({ change: 'make searchable by meaning' }) },
  'index.reembed': { kind: 'change_case', what: (i) => ({ change: 're-embed', model_id: i.model_id }) },
  'files.list': { kind: 'list_files' },
  'files.remove': { kind: 'change_files', what: (i) => ({ change: 'remove', ...doc(i) }) },
  'files.setBates': {
    kind: 'change_files',
    what: (i) => ({ change: 'Bates prefix', file_id: i.file_id, prefix: i.prefix }),
  },
  'files.setType': {
    kind: 'change_files',
    what: (i) => ({ change: 'document type', file_id: i.file_id, type: i.type }),
  },
  'files.retry': { kind: 'change_files', what: (i) => ({ change: 'read again', file_id: i.file_id }) },
  'files.unlock': { kind: 'change_files', what: (i) => ({ change: 'unlock', file_id: i.file_id }) },
  'files.read': { kind: 'open_document', what: doc },
  'models.list': { notRecorded: `lists the installed models; ${NO_MATTER}` },
  'models.import': { kind: 'change_settings', what: (i) => ({ change: 'import model', path: i.path, id: i.id }) },
  'models.download': { kind: 'change_settings', what: (i) => ({ change: 'download model', source: i.source }) },
  'models.setDefault': { kind: 'change_settings', what: (i) => ({ change: 'default model', model_id: i.model_id }) },
  search: { kind: 'search', what: (i) => ({ words: i.query, mode: i.mode }) },
  'tools.findFiles': { kind: 'list_files', what: (i) => ({ file_name: i.file_name ?? i.file_name_contains }) },
  'tools.readFile': { kind: 'open_document', what: (i) => ({ ...doc(i), offset: i.offset }) },
  'tools.grepFile': { kind: 'search', what: (i) => ({ pattern: i.pattern, file_id: i.file_id }) },
  'tools.outline': { kind: 'open_document', what: (i) => ({ ...doc(i), part: 'outline' }) },
  'tools.readSection': { kind: 'open_document', what: (i) => ({ ...doc(i), section: i.section }) },
  'tools.grepCase': { kind: 'search', what: (i) => ({ pattern: i.pattern }) },
  'tools.timeline': { kind: 'open_chronology', what: (i) => ({ from: i.from, to: i.to, words: i.query }) },
  'tools.timelineMark': { kind: 'change_case', what: (i) => ({ change: 'chronology mark', key: i.key, mark: i.mark }) },
  'tools.timelineExport': { kind: 'export', what: (i) => ({ export: 'chronology', format: i.format }) },
  'citations.page': { kind: 'open_page', what: (i) => ({ ...doc(i), page: i.page }) },
  'citations.passage': { kind: 'open_document', what: (i) => ({ ...doc(i), start: i.start, end: i.end }) },
  'citations.words': { kind: 'open_page', what: (i) => ({ ...doc(i), page: i.page }) },
  'chat.ask': { kind: 'ask', what: (i) => ({ question: i.question, session_id: i.session_id, file_ids: i.file_ids }) },
  'chat.cancel': { notRecorded: 'stops a question already recorded by chat.ask; reads nothing' },
  'chat.sessions': { kind: 'open_chat' },
  'chat.session': { kind: 'open_chat', what: (i) => ({ session_id: i.session_id }) },
  'chat.rename': { kind: 'change_chat', what: (i) => ({ change: 'rename', session_id: i.session_id, title: i.title }) },
  'chat.delete': { kind: 'change_chat', what: (i) => ({ change: 'delete', session_id: i.session_id }) },
  'chat.export': {
    kind: 'export',
    what: (i) => ({ export: 'chat', session_id: i.session_id, turn_id: i.turn_id, format: i.format }),
  },
  // Never the passphrase: whether one locked the file.
  'cases.export': { kind: 'export', what: (i) => ({ export: 'matter', locked: i.passphrase !== undefined }) },
  'cases.import': {
    kind: 'change_case',
    what: (i) => ({ change: 'import matter', locked: i.passphrase !== undefined }),
  },
  'audit.check': { kind: 'check_audit' },
  'audit.export': { kind: 'export', what: (i) => ({ export: 'audit trail', from: i.from, to: i.to }) },
  'firm.users.list': { kind: 'account', what: () => ({ change: 'list accounts' }) },
  // Never the password: the name and the role only.
  'firm.users.add': { kind: 'account', what: (i) => ({ change: 'add', name: i.name, role: i.role }) },
  'firm.users.remove': { kind: 'account', what: (i) => ({ change: 'remove', name: i.name }) },
  'firm.members.list': { kind: 'membership', what: () => ({ change: 'list members' }) },
  'firm.members.add': { kind: 'membership', what: (i) => ({ change: 'add', user: i.user }) },
  'firm.members.remove': { kind: 'membership', what: (i) => ({ change: 'remove', user: i.user }) },
};

/**
 * Record an operation about to run, for `actor`. An operation the table does not record, or input
 * the contract refuses (the router answers that), records nothing. A failure to write is an
 * `unavailable` error: the server answers nothing it could not record.
 */
export async function recordOp(log: AuditLog, name: string, input: unknown, actor: Actor): Promise<void> {
  if (!isOpName(name)) return;
  const rule = AUDITED_OPS[name] as AuditRule<OpName>;
  if ('notRecorded' in rule) return;
  const parsed = contract[name].input.safeParse(input ?? {});
  if (!parsed.success) return;
  const data = parsed.data as OpParsed<OpName> & { case_id?: unknown };
  const caseId = typeof data.case_id === 'string' ? data.case_id : null;
  try {
    await log.append({ actor, case_id: caseId, kind: rule.kind, what: rule.what?.(data) ?? {} });
  } catch (err) {
    const why = err instanceof CasefileError ? err.message : (err as Error).message;
    throw new CasefileError(
      'unavailable',
      `This server could not write its audit trail, so it did not carry out the request. Tell whoever runs it: ${why}`,
    );
  }
}
