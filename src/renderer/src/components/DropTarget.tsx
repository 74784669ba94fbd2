import { useEffect, useState } from 'react';
import { useCases } from '../stores/cases';
import { itemsFromDataTransfer } from '../lib/dropped-items';
import { useUi } from '../stores/ui';
import { addItemsToCase } from './Workspace';

/**
 * Files and folders dropped anywhere on the window go into the open case; with no case open,
 * the user is offered a new case named after the dropped folder.
 */
export function DropTarget() {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent) => Boolean(e.dataTransfer?.types.includes('Files'));
    // Both dragenter and dragover accept the files. Chromium decides a drop by the last of them:
    // when the element under the pointer changes at the moment of the drop (the list moved while
    // an ingest ran), only a dragenter fires there, and a drop it did not accept is discarded.
    const accept = (e: DragEvent) => {
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      accept(e);
      depth++;
      setOver(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overHandler = (e: DragEvent) => {
      if (hasFiles(e)) accept(e);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      const items = itemsFromDataTransfer(e.dataTransfer);
      if (!items) return;
      const { selectedId } = useCases.getState();
      const { view, setView, openDialog } = useUi.getState();
      if (selectedId && view === 'workspace') {
        addItemsToCase(selectedId, items);
      } else {
        setView('workspace');
        openDialog({
          kind: 'create',
          suggestedName: items.label.replace(/\.[A-Za-z0-9]{1,5}$/, ''),
          then: (caseId) => addItemsToCase(caseId, items),
        });
      }
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overHandler);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overHandler);
      window.removeEventListener('drop', drop);
    };
  }, []);
  if (!over) return null;
  const open = useCases.getState().cases.find((c) => c.id === useCases.getState().selectedId);
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-card">{open ? `Drop to add to “${open.name}”` : 'Drop to start a new case'}</div>
    </div>
  );
}
