import { useState } from 'react';
import type { FileInfo } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import { visibleName } from '../../lib/visible-name';
import { useDocuments } from '../../stores/documents';

/** The Bates prefix of a stamped PDF: the detected one confirmed or corrected, or "not Bates-stamped". */
export function BatesControl({ caseId, file, tab }: { caseId: string; file: FileInfo; tab: number }) {
  const bates = file.versions[file.versions.length - 1]?.bates;
  const [open, setOpen] = useState(false);
  const [prefix, setPrefix] = useState(bates ? bates.first.replace(/\d+$/, '').trim() : '');
  const [error, setError] = useState<string | null>(null);
  const setBates = useDocuments((s) => s.setBates);
  const save = (value: string | null) =>
    setBates(caseId, file.id, value).then(
      () => {
        setOpen(false);
        setError(null);
      },
      (err) => setError(errorMessage(err)),
    );
  if (!open) {
    return (
      <button type="button" className="btn btn-ghost btn-small bates-open" tabIndex={tab} onClick={() => setOpen(true)}>
        {bates ? 'Change Bates prefix…' : 'Set Bates prefix…'}
      </button>
    );
  }
  return (
    <form
      className="file-actions bates-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(prefix);
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
      <button type="button" className="btn btn-ghost btn-small" onClick={() => setOpen(false)}>
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
