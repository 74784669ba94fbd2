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
    <progress className="file-progress" max={1} value={c.fraction} aria-label={`${c.name} progress`} data-stage={c.stage} />
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
    progress.bytesTotal > 0 ? progress.bytesDone / progress.bytesTotal : 0,
    progress.filesTotal > 0 ? progress.filesDone / progress.filesTotal : 0,
    progress.pagesTotal > 0 && (!progress.pagesEstimated || progress.filesTotal === 1) ? progress.pagesDone / progress.pagesTotal : 0,
  );
  const best = useRef({ jobId: '', pct: 0 });
  if (best.current.jobId !== progress.jobId) best.current = { jobId: progress.jobId, pct: 0 };
  best.current.pct = Math.max(best.current.pct, Math.round(Math.min(1, fraction) * 100));
  const pct = best.current.pct;
  return (
    <div className="ingest-progress" role="status" aria-label="Ingest progress">
      <div className="ingest-progress-line">
        <strong>
          Adding documents: {progress.filesDone} of {plural(progress.filesTotal, 'file')}
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
      {progress.blockedBy && (
        <div className="small" data-testid="ingest-blocked">
          {progress.blockedBy.message}
        </div>
      )}
      <div className="muted small">
        {progress.pagesTotal > 0 ? `${progress.pagesDone} / ${progress.pagesEstimated ? 'about ' : ''}${progress.pagesTotal} pages · ` : ''}
        {progress.etaSeconds !== null ? `about ${formatDuration(progress.etaSeconds * 1000)} left` : 'estimating time left…'}
        {progress.errors > 0 ? ` · ${plural(progress.errors, 'problem')}` : ''}
      </div>
      {semanticText(progress) && (
        <div className="muted small" data-testid="ingest-semantic">
          Found by their words already · {semanticText(progress)}
        </div>
      )}
      {progress.waiting.length > 0 && (
        <div className="muted small ellipsis" data-testid="ingest-waiting" title={progress.waiting.map(visibleName).join(', ')}>
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
