import { useState } from 'react';
import type { FileInfo } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import { visibleName } from '../../lib/visible-name';
import { useDocuments } from '../../stores/documents';

/**
 * The Bates prefix of a stamped PDF, under its row (opened from the row's "More actions" menu): the
 * detected one confirmed or corrected, or "not Bates-stamped". Escape or Cancel closes it.
 */
export function BatesForm({ caseId, file, onDone }: { caseId: string; file: FileInfo; onDone: () => void }) {
  const bates = file.versions[file.versions.length - 1]?.bates;
  const [prefix, setPrefix] = useState(bates ? bates.first.replace(/\d+$/, '').trim() : '');
  const [error, setError] = useState<string | null>(null);
  const setBates = useDocuments((s) => s.setBates);
  const save = (value: string | null) =>
    setBates(caseId, file.id, value).then(
      () => {
        setError(null);
        onDone();
      },
      (err) => setError(errorMessage(err)),
    );
  return (
    <form
      className="file-actions bates-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(prefix);
      }}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onDone();
      }}
    >
      <label className="small">
        Bates prefix of <bdi>{visibleName(file.name.split('/').pop() ?? file.name)}</bdi>{' '}
        <input type="text" value={prefix} autoFocus onChange={(e) => setPrefix(e.target.value)} placeholder="ACME" />
      </label>
      <button type="submit" className="btn btn-small">
        Save
      </button>
      <button type="button" className="btn btn-small" onClick={() => void save(null)}>
        Not Bates-stamped
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={onDone}>
        Cancel
      </button>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
