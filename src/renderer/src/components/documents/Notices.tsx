/** What the documents pane says above the list while documents go in: uploads, the running ingest, what was not added or not finished. */
import { errorMessage } from '../../api/errors';
import { plural } from '../../lib/display-format';
import { visibleName } from '../../lib/visible-name';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';
import { VectorsCatchUp } from '../VectorsCatchUp';
import { OverallProgress } from './OverallProgress';

const NONE: { name: string; reason: string }[] = [];

/** The items of the last drop that were not added, with why. */
function NotAdded({ caseId }: { caseId: string }) {
  const skipped = useDocuments((s) => s.skipped[caseId] ?? NONE);
  if (skipped.length === 0) return null;
  return (
    <details className="ingest-progress ingest-skipped" role="status" aria-label="Not added">
      <summary>Not added: {plural(skipped.length, 'item')} (links out of the folder, pipes, devices)</summary>
      <ul className="small">
        {skipped.map((k) => (
          <li key={k.name}>
            <bdi>{visibleName(k.name)}</bdi> — {k.reason}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Documents an interrupted or cancelled run left unfinished, and "Resume". */
function Unfinished({ caseId, pending }: { caseId: string; pending: number }) {
  const resume = useDocuments((s) => s.resume);
  const toast = useUi((s) => s.toast);
  return (
    <div className="ingest-progress ingest-pending" role="status" aria-label="Unfinished documents">
      <div className="ingest-progress-line">
        <span>
          {plural(pending, 'document')} {pending === 1 ? 'was' : 'were'} not finished (the app was closed or the run was
          cancelled).
        </span>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => resume(caseId).catch((err) => toast('error', errorMessage(err)))}
        >
          Resume
        </button>
      </div>
    </div>
  );
}

export function IngestNotices({ caseId }: { caseId: string }) {
  const upload = useDocuments((s) => s.upload);
  const progress = useDocuments((s) => s.progress[caseId] ?? null);
  const pending = useDocuments((s) => s.pending[caseId] ?? 0);
  return (
    <>
      {upload && (
        <div className="ingest-progress" role="status">
          Uploading {upload.done} of {plural(upload.total, 'file')}…
          <progress max={upload.total} value={upload.done} />
        </div>
      )}
      {progress && <OverallProgress caseId={caseId} progress={progress} />}
      <VectorsCatchUp caseId={caseId} />
      <NotAdded caseId={caseId} />
      {!progress && pending > 0 && <Unfinished caseId={caseId} pending={pending} />}
    </>
  );
}
