/**
 * SQL literals for LanceDB `where` filters. User text only ever enters a filter through these
 * helpers: strings are single-quoted with quotes doubled, numbers must be finite integers.
 */
export function sqlString(value: string): string {
  // DataFusion string literals: '' is a quote; backslashes are literal. NUL cannot appear in a filter.
  return `'${value.replace(/\u0000/g, '').replace(/'/g, "''")}'`;
}

export function sqlInt(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`Not an integer for a filter: ${value}`);
  return String(value);
}

export function sqlStringList(values: Iterable<string>): string {
  return `(${[...values].map(sqlString).join(', ')})`;
}

export function and(...parts: (string | undefined | false)[]): string | undefined {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.length > 0);
  return kept.length ? kept.map((p) => `(${p})`).join(' AND ') : undefined;
}
