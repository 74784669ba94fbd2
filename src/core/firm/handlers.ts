import type { HandlerMap } from '../router/router';
import type { CaseRegistry } from '../cases/index';
import type { FirmStore } from './store';

/** The `firm.*` operations: accounts and membership in `<home>/firm/`; only a firm server's administrators reach them over HTTP. */
export function firmHandlers(store: FirmStore, cases: CaseRegistry): HandlerMap {
  const members = async (caseId: string, change?: { user: string; member: boolean }) => {
    await cases.get(caseId); // not_found when there is no such case
    const names = change ? await store.setMember(caseId, change.user, change.member) : await store.members(caseId);
    return { case_id: caseId, members: names };
  };
  return {
    'firm.users.list': async () => ({ users: await store.users() }),
    'firm.users.add': async ({ name, password, role }) => store.addUser(name, password, role),
    'firm.users.remove': async ({ name }) => {
      await store.removeUser(name);
      return { name, removed: true as const };
    },
    'firm.members.list': async ({ case_id: caseId }) => members(caseId),
    'firm.members.add': async ({ case_id: caseId, user }) => members(caseId, { user, member: true }),
    'firm.members.remove': async ({ case_id: caseId, user }) => members(caseId, { user, member: false }),
  };
}
