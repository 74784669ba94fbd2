import { create } from 'zustand';
import type { FirmRole, FirmUser } from '../../../shared/contract/firm';
import { api } from '../api/index';
import { download } from '../lib/citations';

/**
 * A firm server's accounts and case membership, for its administrators (Settings → People). Every
 * change answers with the server's own words when refused; the lists are read again after it.
 */
interface FirmState {
  users: FirmUser[];
  /** Members of the case last asked about. */
  members: { caseId: string; names: string[] } | null;
  loadUsers(): Promise<void>;
  addUser(name: string, password: string, role: FirmRole): Promise<void>;
  removeUser(name: string): Promise<void>;
  loadMembers(caseId: string): Promise<void>;
  addMember(caseId: string, user: string): Promise<void>;
  removeMember(caseId: string, user: string): Promise<void>;
  /** Save the whole audit trail as a CSV download. */
  downloadAudit(): Promise<string>;
}

export const useFirm = create<FirmState>((set, get) => ({
  users: [],
  members: null,
  async loadUsers() {
    const { users } = await api.call('firm.users.list', {});
    set({ users });
  },
  async addUser(name, password, role) {
    await api.call('firm.users.add', { name, password, role });
    await get().loadUsers();
  },
  async removeUser(name) {
    await api.call('firm.users.remove', { name });
    await get().loadUsers();
    const members = get().members;
    if (members) await get().loadMembers(members.caseId);
  },
  async loadMembers(caseId) {
    const r = await api.call('firm.members.list', { case_id: caseId });
    set({ members: { caseId, names: r.members } });
  },
  async addMember(caseId, user) {
    const r = await api.call('firm.members.add', { case_id: caseId, user });
    set({ members: { caseId, names: r.members } });
    await get().loadUsers();
  },
  async removeMember(caseId, user) {
    const r = await api.call('firm.members.remove', { case_id: caseId, user });
    set({ members: { caseId, names: r.members } });
    await get().loadUsers();
  },
  async downloadAudit() {
    const { filename, csv } = await api.call('audit.export', {});
    download(csv, 'text/csv', filename);
    return filename;
  },
}));
