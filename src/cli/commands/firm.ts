import type { Engine } from '../../core/engine';
import { printable, table, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';
import { passwordFrom } from './ingest';

/** `firm user add NAME [--admin]` (password typed, piped in, or --password-file), `firm user list`, `firm user remove NAME`. */
async function userCommand(engine: Engine, args: Parsed, rest: string[], io: CliIO): Promise<number> {
  const json = args.values.json === true;
  const [action, name, ...extra] = rest;
  if (extra.length) throw new UsageError('firm user takes add NAME [--admin], list, or remove NAME');
  if (action === 'list' && name === undefined) {
    const { users } = await engine.router.call('firm.users.list', {});
    if (json) io.out(wireJson({ users }));
    else if (users.length === 0)
      io.out('No accounts yet. Create an administrator with: casefile firm user add NAME --admin');
    else
      io.out(
        table(
          ['NAME', 'ROLE', 'CASES', 'CREATED'],
          users.map((u) => [u.name, u.role, String(u.cases.length), u.created.slice(0, 16).replace('T', ' ')]),
        ),
      );
    return 0;
  }
  if (action === 'add' && name) {
    const password = await passwordFrom(args, name);
    if (!password) throw new UsageError('no password given');
    const role = args.values.admin === true ? 'admin' : 'reviewer';
    const user = await engine.router.call('firm.users.add', { name, password, role });
    io.out(json ? wireJson(user) : `Added ${user.role === 'admin' ? 'administrator' : 'reviewer'} ${user.name}`);
    return 0;
  }
  if (action === 'remove' && name) {
    const removed = await engine.router.call('firm.users.remove', { name });
    io.out(json ? wireJson(removed) : `Removed ${removed.name}; their sessions end and they leave every case.`);
    return 0;
  }
  throw new UsageError('firm user takes add NAME [--admin], list, or remove NAME');
}

/** `firm members list CASE`, `firm members add|remove CASE USER`. */
async function membersCommand(engine: Engine, args: Parsed, rest: string[], io: CliIO): Promise<number> {
  const json = args.values.json === true;
  const [action, ref, user, ...extra] = rest;
  const wants =
    action === 'list' ? user === undefined : (action === 'add' || action === 'remove') && user !== undefined;
  if (!ref || !wants || extra.length)
    throw new UsageError('firm members takes list CASE, add CASE USER, or remove CASE USER');
  const target = await engine.cases.resolve(ref);
  const result =
    action === 'list'
      ? await engine.router.call('firm.members.list', { case_id: target.id })
      : await engine.router.call(action === 'add' ? 'firm.members.add' : 'firm.members.remove', {
          case_id: target.id,
          user: user ?? '',
        });
  if (json) io.out(wireJson(result));
  else if (result.members.length === 0)
    io.out(`"${printable(target.name)}" has no members: only administrators see it.`);
  else io.out(`Members of "${printable(target.name)}": ${result.members.join(', ')}`);
  return 0;
}

/**
 * `casefile firm user …` and `casefile firm members …`: the accounts and matter membership of a
 * firm server (`casefile serve --firm`), kept in `<home>/firm/`; a running server sees changes at once.
 */
export async function firmCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [what, ...rest] = args.positionals;
  if (what === 'user' || what === 'users') return userCommand(engine, args, rest, io);
  if (what === 'members') return membersCommand(engine, args, rest, io);
  throw new UsageError('firm takes user add|list|remove or members add|remove|list');
}
