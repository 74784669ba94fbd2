import { type FormEvent, useEffect, useState } from 'react';
import type { FirmRole, FirmUser } from '../../../shared/contract/firm';
import { errorMessage } from '../api/index';
import { useCases } from '../stores/cases';
import { useFirm } from '../stores/firm';
import { useSession } from '../stores/session';
import { Modal } from './Modal';
import { PasswordField } from './PasswordField';

const ROLE_NAMES: Record<FirmRole, string> = { admin: 'Administrator', reviewer: 'Reviewer' };

/** Asks before an account is removed: its sessions end and it leaves every case. */
function RemoveAccountDialog({ name, onClose }: { name: string; onClose: () => void }) {
  const removeUser = useFirm((s) => s.removeUser);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <Modal
      title="Remove account"
      onClose={onClose}
      onSubmit={async () => {
        setBusy(true);
        try {
          await removeUser(name);
          onClose();
        } catch (err) {
          setProblem(errorMessage(err));
          setBusy(false);
        }
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose} autoFocus>
            Keep it
          </button>
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Remove account
          </button>
        </>
      }
    >
      <p>
        Remove the account <strong>{name}</strong>? Whoever uses it is signed out at once and no longer sees any case.
        The cases themselves are not touched.
      </p>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </Modal>
  );
}

/** The firm's accounts: name, role and the cases each may see, with a way to remove one. */
function Accounts({ users, me }: { users: FirmUser[]; me: string }) {
  const cases = useCases((s) => s.cases);
  const [removing, setRemoving] = useState<string | null>(null);
  const caseName = (id: string) => cases.find((c) => c.id === id)?.name ?? id;
  return (
    <>
      <table className="people-table" aria-label="Accounts">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Cases</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.name}>
              <td>{u.name}</td>
              <td>{ROLE_NAMES[u.role]}</td>
              <td>
                {u.role === 'admin' ? 'Every case' : u.cases.length ? u.cases.map(caseName).join(', ') : 'None yet'}
              </td>
              <td>
                {u.name !== me && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`Remove the account ${u.name}`}
                    onClick={() => setRemoving(u.name)}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {removing && <RemoveAccountDialog name={removing} onClose={() => setRemoving(null)} />}
    </>
  );
}

/** A new account: its name, role and password typed twice; the server's reason shows when it refuses. */
function AddAccount() {
  const addUser = useFirm((s) => s.addUser);
  const [name, setName] = useState('');
  const [role, setRole] = useState<FirmRole>('reviewer');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAdded(null);
    if (password !== again) return setProblem('The two passwords differ. Type the same password twice.');
    setProblem(null);
    setBusy(true);
    try {
      await addUser(name.trim(), password, role);
      setAdded(`Added the account ${name.trim().toLowerCase()}.`);
      setName('');
      setPassword('');
      setAgain('');
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="people-form" aria-labelledby="add-account-heading" onSubmit={(e) => void submit(e)}>
      <h3 id="add-account-heading">Add an account</h3>
      <label>
        User name
        <input value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" spellCheck={false} required />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as FirmRole)}>
          <option value="reviewer">Reviewer (sees the cases they are a member of)</option>
          <option value="admin">Administrator (sees every case, manages accounts)</option>
        </select>
      </label>
      <PasswordField
        label="Password (at least 10 characters)"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
      />
      <PasswordField label="Password again" autoComplete="new-password" value={again} onChange={setAgain} />
      <button type="submit" className="btn" disabled={busy || !name.trim() || !password}>
        {busy ? 'Adding…' : 'Add account'}
      </button>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {added && <p role="status">{added}</p>}
    </form>
  );
}

/** Who may see the open case: its members, each removable, and a reviewer to add. */
function CaseMembers({ users }: { users: FirmUser[] }) {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const members = useFirm((s) => s.members);
  const loadMembers = useFirm((s) => s.loadMembers);
  const addMember = useFirm((s) => s.addMember);
  const removeMember = useFirm((s) => s.removeMember);
  const [pick, setPick] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const caseId = selected?.id;
  useEffect(() => {
    if (caseId) loadMembers(caseId).catch((err) => setProblem(errorMessage(err)));
  }, [caseId, loadMembers]);
  if (!selected) return <p className="muted">Open a case to choose who may see it.</p>;
  const names = members?.caseId === selected.id ? members.names : [];
  const others = users.filter((u) => u.role === 'reviewer' && !names.includes(u.name));
  const change = (work: Promise<void>) => {
    setProblem(null);
    work.catch((err) => setProblem(errorMessage(err)));
  };
  return (
    <div aria-labelledby="members-heading" role="group">
      <h3 id="members-heading">Who may see “{selected.name}”</h3>
      <p className="muted small">Administrators see every case. A reviewer sees only the cases they are a member of.</p>
      {names.length > 0 ? (
        <ul className="watch-folders" aria-label="Members">
          {names.map((n) => (
            <li key={n}>
              {n}{' '}
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Take ${n} off this case`}
                onClick={() => change(removeMember(selected.id, n))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No reviewer is a member of this case yet.</p>
      )}
      <div className="field-row">
        <label>
          Reviewer to add{' '}
          <select value={pick} onChange={(e) => setPick(e.target.value)} disabled={others.length === 0}>
            <option value="">{others.length ? 'Choose a reviewer' : 'Every reviewer is a member'}</option>
            {others.map((u) => (
              <option key={u.name} value={u.name}>
                {u.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <button
          type="button"
          className="btn btn-small"
          disabled={!pick}
          onClick={() => {
            change(addMember(selected.id, pick));
            setPick('');
          }}
        >
          Add to case
        </button>
      </div>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

/** The whole audit trail as a CSV file, saved as a download. */
function AuditDownload() {
  const downloadAudit = useFirm((s) => s.downloadAudit);
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const run = () =>
    downloadAudit().then(
      (file) => setSaid({ ok: true, text: `Saved ${file} to your downloads.` }),
      (err) => setSaid({ ok: false, text: errorMessage(err) }),
    );
  return (
    <div className="field-row">
      <button type="button" className="btn" onClick={() => void run()}>
        Download audit trail (CSV)
      </button>
      {said && (
        <p className={said.ok ? undefined : 'error'} role={said.ok ? 'status' : 'alert'}>
          {said.text}
        </p>
      )}
    </div>
  );
}

/** Settings → People: accounts and case membership of a firm server, for its administrators only. */
export function People() {
  const me = useSession((s) => (s.info?.firm && s.info.user?.role === 'admin' ? s.info.user.name : null));
  const users = useFirm((s) => s.users);
  const loadUsers = useFirm((s) => s.loadUsers);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (me) loadUsers().catch((err) => setProblem(errorMessage(err)));
  }, [me, loadUsers]);
  if (!me) return null;
  return (
    <section className="card" aria-labelledby="people-heading">
      <h2 id="people-heading">People</h2>
      <p className="muted small">
        Everyone who signs in to this server. Reviewers see only the cases they are members of; every look at a case is
        recorded in the audit trail.
      </p>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      <Accounts users={users} me={me} />
      <AddAccount />
      <CaseMembers users={users} />
      <AuditDownload />
    </section>
  );
}
