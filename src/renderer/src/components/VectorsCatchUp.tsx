import { useEffect, useState } from 'react';
import type { IndexVectorsStatus } from '../../../shared/contract/ingest';
import { api, errorMessage } from '../api/index';
import { useDocuments } from '../stores/documents';
import { useUi } from '../stores/ui';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * In the documents pane: the case's passages being made searchable by meaning in the background
 * (after an embedding model became available), and a button that starts it when they wait.
 */
export function VectorsCatchUp({ caseId }: { caseId: string }) {
  const [status, setStatus] = useState<IndexVectorsStatus | null>(null);
  const toast = useUi((s) => s.toast);
  const vectorsStatus = useDocuments((s) => s.vectorsStatus);
  const catchUpVectors = useDocuments((s) => s.catchUpVectors);
  useEffect(() => {
    let live = true;
    setStatus(null);
    const load = () =>
      vectorsStatus(caseId)
        .then((s) => live && setStatus(s))
        .catch(() => {});
    void load();
    const offVectors = api.on('index.vectors', (e) => {
      if (e.case_id === caseId) setStatus(e);
    });
    // An ingest that ends may leave passages waiting (or a model may have come meanwhile).
    const offIngest = api.on('ingest.progress', (p) => {
      if (p.case_id === caseId && p.state !== 'running') void load();
    });
    const offModels = api.on('models.changed', () => void load());
    return () => {
      live = false;
      offVectors();
      offIngest();
      offModels();
    };
  }, [caseId, vectorsStatus]);

  if (!status || status.state === 'none' || status.state === 'done' || status.total === 0) return null;
  const start = () =>
    catchUpVectors(caseId)
      .then(setStatus)
      .catch((err) => toast('error', errorMessage(err)));
  const pct = Math.floor((status.embedded / status.total) * 100);
  const working = status.state === 'running' || status.state === 'waiting';
  return (
    <div
      className="ingest-progress"
      role="status"
      aria-label="Search by meaning"
      data-testid="vectors-catch-up"
      data-state={status.state}
    >
      <div className="ingest-progress-line">
        {working ? (
          <strong>
            Making {count(status.total)} passages searchable by meaning — {pct} %
          </strong>
        ) : (
          <span>
            {count(status.total - status.embedded)} passages are found by their words only, not yet by their meaning.
          </span>
        )}
        {!working && (
          <button type="button" className="btn btn-small" onClick={start}>
            {status.state === 'failed' ? 'Try again' : 'Make searchable by meaning'}
          </button>
        )}
      </div>
      {working && <progress max={status.total} value={status.embedded} aria-label="Search by meaning progress" />}
      <div className="muted small">
        {status.state === 'waiting' && 'Starts once the work before it is done. '}
        {status.state === 'failed' &&
          `It stopped: ${status.problem ?? 'an error'}. It tries again by itself in a minute. `}
        Search works by words meanwhile.
      </div>
    </div>
  );
}
