/** The running ingest of a case: the overall bar, what waits, and each file in flight with its own bar. */
import { useRef } from 'react';
import type { IngestCurrentFile, IngestProgress } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import { formatDuration, plural, semanticText } from '../../lib/display-format';
import { stageText } from '../../lib/file-labels';
import { visibleName } from '../../lib/visible-name';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';

/** A file's own bar: determinate while its stage has a count, indeterminate for the short stages without one. */
function FileProgress({ c }: { c: IngestCurrentFile }) {
  return c.fraction !== null ? (
    <progress
      className="file-progress"
      max={1}
      value={c.fraction}
      aria-label={`${c.name} progress`}
      data-stage={c.stage}
    />
  ) : (
    <progress className="file-progress" aria-label={`${c.name} progress`} data-stage={c.stage} />
  );
}

export function OverallProgress({ caseId, progress }: { caseId: string; progress: IngestProgress }) {
  const cancel = useDocuments((s) => s.cancel);
  const toast = useUi((s) => s.toast);
  // Bytes move when a file finishes, pages as each is parsed: show the further of the two, and
  // never let the bar move backwards within one job (an estimated page total can still change).
  const fraction = Math.max(
    progress.bytes_total > 0 ? progress.bytes_done / progress.bytes_total : 0,
    progress.files_total > 0 ? progress.files_done / progress.files_total : 0,
    progress.pages_total > 0 && (!progress.pages_estimated || progress.files_total === 1)
      ? progress.pages_done / progress.pages_total
      : 0,
  );
  const best = useRef({ jobId: '', pct: 0 });
  if (best.current.jobId !== progress.job_id) best.current = { jobId: progress.job_id, pct: 0 };
  best.current.pct = Math.max(best.current.pct, Math.round(Math.min(1, fraction) * 100));
  const pct = best.current.pct;
  return (
    <div className="ingest-progress" role="status" aria-label="Ingest progress">
      <div className="ingest-progress-line">
        <strong>
          Adding documents: {progress.files_done} of {plural(progress.files_total, 'file')}
        </strong>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => cancel(caseId).catch((err) => toast('error', errorMessage(err)))}
        >
          Cancel
        </button>
      </div>
      <progress max={100} value={pct} aria-label="Overall progress" />
      {progress.blocked_by && (
        <div className="small" data-testid="ingest-blocked">
          {progress.blocked_by.message}
        </div>
      )}
      <div className="muted small">
        {progress.pages_total > 0
          ? `${progress.pages_done} / ${progress.pages_estimated ? 'about ' : ''}${progress.pages_total} pages · `
          : ''}
        {progress.eta_seconds !== null
          ? `about ${formatDuration(progress.eta_seconds * 1000)} left`
          : 'estimating time left…'}
        {progress.errors > 0 ? ` · ${plural(progress.errors, 'problem')}` : ''}
      </div>
      {semanticText(progress) && (
        <div className="muted small" data-testid="ingest-semantic">
          Found by their words already · {semanticText(progress)}
        </div>
      )}
      {progress.waiting.length > 0 && (
        <div
          className="muted small ellipsis"
          data-testid="ingest-waiting"
          title={progress.waiting.map(visibleName).join(', ')}
        >
          Waiting to be added next: <bdi>{progress.waiting.map(visibleName).join(', ')}</bdi>
        </div>
      )}
      {progress.current.length > 0 && (
        <ul className="ingest-current">
          {progress.current.map((c) => (
            <li key={c.name} data-current={c.name}>
              <bdi className="ellipsis" title={visibleName(c.name)}>
                {visibleName(c.name)}
              </bdi>
              <span className="muted small stage">{stageText(c)}</span>
              <FileProgress c={c} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
