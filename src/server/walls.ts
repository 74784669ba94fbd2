/**
 * Ethical walls of a firm server: a reviewer reaches only the cases they are a member of. Every
 * operation whose input names a case (`case_id`, per the contract) is answered for any other case
 * exactly as for a case that does not exist; operations over several cases see only member cases;
 * what belongs to an administrator (accounts, membership, the audit trail, creating and deleting cases, models) is
 * refused to reviewers. Administrators see every case.
 */
import type { EventBus } from '../core/bus';
import type { FirmStore } from '../core/firm/index';
import type { ModelsList, OpName } from '../shared/contract/index';
import { CasefileError } from '../shared/errors';
import type { Actor } from './actor';

/** What the dispatcher does with one call once the walls have let it through. */
export interface WallCall {
  /** The cases the caller may see, for operations over several cases; absent: every case. */
  visible?: (caseId: string) => boolean;
  /** Answer this instead of calling the operation (what an unknown id gets). */
  answer?: unknown;
  /** The answer as the caller may see it. */
  filter?: (value: unknown) => unknown;
}

export interface Walls {
  /** Throws (as for a case that does not exist, or forbidden) when `actor` may not call `name` with `input`. */
  check(name: string, input: unknown, actor: Actor): Promise<WallCall>;
  /** Cases `actor` may see now; undefined: every case. */
  casesOf(actor: Actor): Promise<Set<string> | undefined>;
  close(): void;
}

/** Operations only an administrator may call. */
const ADMIN_ONLY = new Set<string>([
  'cases.create',
  'cases.delete',
  'models.import',
  'models.download',
  'models.setDefault',
  'firm.users.list',
  'firm.users.add',
  'firm.users.remove',
  'firm.members.list',
  'firm.members.add',
  'firm.members.remove',
  'cases.import',
  'audit.check',
  'audit.export',
] satisfies OpName[]);

/** What the engine answers for a case id it does not know (src/core/cases/registry.ts). */
export function noSuchCase(caseId: string): CasefileError {
  return new CasefileError('not_found', `No case with id ${caseId}.`);
}

function onlyAdmins(): CasefileError {
  return new CasefileError('forbidden', 'Only an administrator of this server can do that.');
}

/** Answers listing cases or models, with what the caller may not see taken out. */
function filterFor(name: string, visible: (id: string) => boolean): ((value: unknown) => unknown) | undefined {
  if (name === 'cases.list')
    return (v) => {
      const value = v as { cases: { id: string }[] };
      return { ...value, cases: value.cases.filter((c) => visible(c.id)) };
    };
  if (name === 'models.list')
    return (v) => {
      const value = v as ModelsList;
      const models = value.models.map((m) => ({ ...m, used_by: m.used_by.filter((u) => visible(u.case_id)) }));
      return { ...value, models };
    };
  return undefined;
}

export function createWalls(
  store: FirmStore,
  caseExists: (caseId: string) => Promise<boolean>,
  events: EventBus,
): Walls {
  // Which case each running turn asks about, so `chat.cancel` (by turn id) stays behind the walls.
  const turns = new Map<string, string>();
  const offs = [
    events.on('agent.turn', (e) => turns.set(e.turn_id, e.case_id)),
    events.on('agent.done', (e) => turns.delete(e.turn_id)),
  ];

  const casesOf = async (actor: Actor) => {
    if (actor.role === 'admin' || actor.role === 'token') return undefined;
    return new Set((await store.user(actor.user))?.cases ?? []);
  };

  const check = async (name: string, input: unknown, actor: Actor): Promise<WallCall> => {
    const mine = await casesOf(actor);
    if (!mine) return {};
    const visible = (id: string) => mine.has(id);
    const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
    const caseId = fields.case_id;
    if (typeof caseId === 'string' && !(visible(caseId) && (await caseExists(caseId)))) throw noSuchCase(caseId);
    if (name === 'chat.cancel' && typeof fields.turn_id === 'string') {
      const of = turns.get(fields.turn_id);
      if (of !== undefined && !visible(of)) return { answer: { turn_id: fields.turn_id, cancelled: false } };
    }
    if (ADMIN_ONLY.has(name) || (name === 'ingest.resume' && caseId === undefined)) throw onlyAdmins();
    const filter = filterFor(name, visible);
    return { visible, ...(filter ? { filter } : {}) };
  };

  return {
    check,
    casesOf,
    close: () => {
      for (const off of offs) off();
    },
  };
}
