/** "ZoundsHearingInc_20190807_10-Q_EX-10.1_Marketing Agreement.pdf" → "Zounds Hearing Inc 20190807 10-Q EX-10.1 Marketing Agreement". */
export function readableFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/_+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/\s+/g, ' ')
    .trim();
}
