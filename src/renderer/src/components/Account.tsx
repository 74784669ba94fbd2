import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { useSession } from '../stores/session';
import { PasswordField } from './PasswordField';

/** The sign-in form of a firm server: a name, a password, and the server's reason when refused. */
function SignInForm() {
  const signIn = useSession((s) => s.signIn);
  const error = useSession((s) => s.error);
  const busy = useSession((s) => s.busy);
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (user.trim() && password) void signIn(user.trim(), password);
  };
  return (
    <main className="sign-in">
      <form className="sign-in-form" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Casefile</h1>
        <p className="muted">Use the name and password your administrator gave you.</p>
        <label>
          User name
          <input autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required />
        </label>
        <PasswordField label="Password" autoComplete="current-password" value={password} onChange={setPassword} />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Shows `children` (the app) once the page may use the server: at once without accounts, after sign-in on a firm server. */
export function SignInGate({ children }: { children: ReactNode }) {
  const phase = useSession((s) => s.phase);
  const check = useSession((s) => s.check);
  useEffect(() => {
    void check();
  }, [check]);
  if (phase === 'checking') return null;
  if (phase === 'signed-out') return <SignInForm />;
  return <>{children}</>;
}

/** Who is signed in, and the way out (firm servers only). */
export function SignedInAs() {
  const user = useSession((s) => s.info?.user);
  const signOut = useSession((s) => s.signOut);
  if (!user) return null;
  return (
    <div className="signed-in">
      <span className="muted" title={user.role === 'admin' ? 'Administrator' : 'Reviewer'}>
        Signed in as {user.name}
      </span>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  );
}
