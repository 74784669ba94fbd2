/**
 * "Ask about these": tick documents in the documents list, then limit the next questions to
 * them. The tick box of a row, the bar that shows what is ticked, and the chip above the chat
 * input that says the questions are limited (removable).
 */
import type { FileInfo } from '../../../shared/contract/ingest';
import { useChat } from '../stores/chat';
import { plural } from '../lib/display-format';
import { useLayout } from '../stores/layout';

/** A row's tick box: out of the Tab order (the tree is one Tab stop; Space on the row ticks it). */
export function SelectBox({ file, label }: { file: FileInfo; label: string }) {
  const checked = useChat((s) => s.selected.includes(file.id));
  const toggle = useChat((s) => s.toggleSelected);
  return (
    <input
      type="checkbox"
      className="file-select"
      aria-label={`Select ${label}`}
      tabIndex={-1}
      checked={checked}
      onChange={() => toggle(file.id)}
      onClick={(e) => e.stopPropagation()}
    />
  );
}

/** "N selected · Ask about these · Clear", while some documents are ticked. */
export function SelectionBar({ files }: { files: FileInfo[] }) {
  const selected = useChat((s) => s.selected);
  const askAbout = useChat((s) => s.askAbout);
  const clear = useChat((s) => s.clearSelected);
  const chosen = files.filter((f) => selected.includes(f.id));
  if (!chosen.length) return null;
  return (
    <div className="select-bar small" role="toolbar" aria-label="Selected documents">
      <span role="status">{chosen.length} selected</span>
      {' · '}
      <button
        type="button"
        className="link link-inline"
        title="Limit the next questions to the selected documents"
        onClick={() => {
          askAbout(chosen.map((f) => ({ file_id: f.id, file_name: f.name })));
          // The question box is in the chat pane: open it if it was folded, then give the box the focus.
          useLayout.getState().setFolded('chat', false);
          requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>('.chat-input textarea')?.focus());
        }}
      >
        Ask about these
      </button>
      {' · '}
      <button type="button" className="link link-inline" onClick={clear}>
        Clear
      </button>
    </div>
  );
}

/** Above the chat input while questions are limited: "Limited to N documents ×". */
export function LimitChip() {
  const limit = useChat((s) => s.limit);
  const clearLimit = useChat((s) => s.clearLimit);
  if (!limit) return null;
  const names = limit.map((d) => d.file_name).join(', ');
  return (
    <div className="limit-chip small" data-testid="limit-chip" title={names}>
      <span>Limited to {plural(limit.length, 'document')}</span>
      <button
        type="button"
        className="limit-chip-remove"
        aria-label={`Stop limiting questions to ${plural(limit.length, 'document')}`}
        onClick={clearLimit}
      >
        ×
      </button>
    </div>
  );
}
