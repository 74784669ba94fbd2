/**
 * RFC 4180 CSV that is safe to open in a spreadsheet: a cell that a spreadsheet would run as a
 * formula (=, +, -, @, tab or carriage return first) gets a leading apostrophe, so it shows as text.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows (the header first) as CSV text, CRLF line ends. */
export function csvText(rows: string[][]): string {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
