import { useEffect, useState } from 'react';
import type { AppInfo } from '../../../shared/contract/index';
import { api, errorMessage } from '../api/index';

export function Settings() {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.call('app.info', {}).then(setInfo, (err) => setError(errorMessage(err)));
  }, []);
  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      <section className="card">
        <h2>Data folder</h2>
        <p className="muted">Every case, its documents, index and chats live here, on this computer only.</p>
        <code className="path" data-testid="data-folder">
          {info?.home ?? '…'}
        </code>
      </section>
      <section className="card">
        <h2>About</h2>
        <p>
          Casefile {info ? <span data-testid="app-version">{info.version}</span> : '…'} — offline case files with cited
          answers.
        </p>
      </section>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
