import type { RefObject } from 'react';
import type { FileInfo } from '../../../../shared/contract/ingest';
import { useUi } from '../../stores/ui';
import { MenuButton, type MenuChoice } from './MenuButton';

/** A stamped PDF's (or scan's) Bates prefix can be set once it has been read. */
export function batesSettable(file: FileInfo): boolean {
  return (file.kind === 'pdf' || file.kind === 'image') && file.status === 'indexed';
}

/** A row's "⋯" (More actions): what is seldom needed, kept off the row: its versions, its Bates prefix, removing it. */
export function RowMenu({
  caseId,
  file,
  base,
  tab,
  buttonRef,
  onVersions,
  onBates,
}: {
  caseId: string;
  file: FileInfo;
  base: string;
  tab: number;
  buttonRef: RefObject<HTMLButtonElement | null>;
  onVersions: () => void;
  onBates: () => void;
}) {
  const openDialog = useUi((s) => s.openDialog);
  const versions = file.versions.length;
  const items: MenuChoice[] = [
    { key: 'versions', label: versions > 1 ? `Versions (${versions})…` : 'Versions…', onSelect: onVersions },
  ];
  if (batesSettable(file))
    items.push({
      key: 'bates',
      label: file.versions[versions - 1]?.bates ? 'Change Bates prefix…' : 'Set Bates prefix…',
      onSelect: onBates,
    });
  // Asks first, in a dialog naming the file.
  items.push({
    key: 'remove',
    label: 'Remove from case…',
    onSelect: () => openDialog({ kind: 'removeFile', caseId, fileId: file.id, name: file.name, versions }),
  });
  return (
    <MenuButton
      className="btn-icon row-more"
      label={`More actions for ${base}`}
      title="More actions"
      tabIndex={tab}
      menuLabel={`Actions for ${base}`}
      items={items}
      buttonRef={buttonRef}
    >
      ⋯
    </MenuButton>
  );
}
