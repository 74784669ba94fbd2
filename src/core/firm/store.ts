/**
 * A firm server's accounts and matter membership, kept under `<home>/firm/` (a folder only its
 * owner may open): `users.json` (names, roles, password hashes) and `members.json` (case id → user
 * names). Read afresh on every question, so `casefile firm …` run beside a serving process takes
 * effect at once; written atomically.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FirmRole, FirmUser } from '../../shared/contract/firm';
import { CasefileError } from '../../shared/errors';
import { readTextIfExists, writeJsonAtomic } from '../util/fs';
import { decoyHash, hashPassword, verifyPassword } from './passwords';

interface StoredUser {
  name: string;
  role: FirmRole;
  created: string;
  hash: string;
}

interface State {
  users: StoredUser[];
  /** Case id → member names. */
  members: Record<string, string[]>;
}

export class FirmStore {
  readonly dir: string;
  /** Writes of this process one at a time, so two changes never overwrite each other. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(home: string) {
    this.dir = path.join(home, 'firm');
  }

  private async readFile<T>(name: string, empty: T): Promise<T> {
    const text = await readTextIfExists(path.join(this.dir, name));
    if (text === undefined) return empty;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CasefileError('internal', `The firm server's ${name} in ${this.dir} is damaged (not valid JSON).`);
    }
  }

  private async state(): Promise<State> {
    const users = await this.readFile<{ users: StoredUser[] }>('users.json', { users: [] });
    const members = await this.readFile<{ members: Record<string, string[]> }>('members.json', { members: {} });
    return { users: users.users ?? [], members: members.members ?? {} };
  }

  /** Apply `change` to the state read now, and write what it returns. */
  private change<T>(change: (state: State) => Promise<T> | T): Promise<T> {
    const run = this.writing.then(async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const state = await this.state();
      const result = await change(state);
      await writeJsonAtomic(path.join(this.dir, 'users.json'), { users: state.users });
      await writeJsonAtomic(path.join(this.dir, 'members.json'), { members: state.members });
      return result;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private static view(user: StoredUser, members: State['members']): FirmUser {
    const cases = Object.keys(members).filter((id) => members[id]?.includes(user.name));
    return { name: user.name, role: user.role, created: user.created, cases: cases.sort() };
  }

  async users(): Promise<FirmUser[]> {
    const { users, members } = await this.state();
    return users.map((u) => FirmStore.view(u, members)).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The account named `name`, or undefined. */
  async user(name: string): Promise<FirmUser | undefined> {
    const { users, members } = await this.state();
    const found = users.find((u) => u.name === name);
    return found ? FirmStore.view(found, members) : undefined;
  }

  async addUser(name: string, password: string, role: FirmRole): Promise<FirmUser> {
    const hash = await hashPassword(password);
    return this.change((state) => {
      if (state.users.some((u) => u.name === name))
        throw new CasefileError('conflict', `There is already a user named ${name}.`);
      const user: StoredUser = { name, role, created: new Date().toISOString(), hash };
      state.users.push(user);
      return FirmStore.view(user, state.members);
    });
  }

  async removeUser(name: string): Promise<void> {
    await this.change((state) => {
      const user = state.users.find((u) => u.name === name);
      if (!user) throw new CasefileError('not_found', `There is no user named ${name}.`);
      if (user.role === 'admin' && state.users.filter((u) => u.role === 'admin').length === 1)
        throw new CasefileError('conflict', `${name} is the only administrator; add another one first.`);
      state.users = state.users.filter((u) => u.name !== name);
      for (const id of Object.keys(state.members))
        state.members[id] = (state.members[id] ?? []).filter((m) => m !== name);
    });
  }

  async members(caseId: string): Promise<string[]> {
    const { members } = await this.state();
    return [...(members[caseId] ?? [])].sort();
  }

  /** Add (`true`) or take off (`false`) `user` as a member of `caseId`; the user must exist. */
  async setMember(caseId: string, user: string, member: boolean): Promise<string[]> {
    return this.change((state) => {
      if (!state.users.some((u) => u.name === user))
        throw new CasefileError('not_found', `There is no user named ${user}.`);
      const now = new Set(state.members[caseId] ?? []);
      if (member) now.add(user);
      else now.delete(user);
      state.members[caseId] = [...now].sort();
      if (now.size === 0) delete state.members[caseId];
      return [...now].sort();
    });
  }

  /** The case's membership goes with the case. */
  async forgetCase(caseId: string): Promise<void> {
    if ((await this.state()).members[caseId] === undefined) return;
    await this.change((state) => {
      delete state.members[caseId];
    });
  }

  /**
   * The account when `password` is its password, else null. An unknown name is checked against a
   * decoy hash, so it takes as long as a wrong password and the answer cannot tell them apart.
   */
  async signIn(name: string, password: string): Promise<FirmUser | null> {
    const { users, members } = await this.state();
    const user = users.find((u) => u.name === name);
    const ok = await verifyPassword(password, user?.hash ?? (await decoyHash()));
    return ok && user ? FirmStore.view(user, members) : null;
  }
}
