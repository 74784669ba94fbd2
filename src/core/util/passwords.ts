/**
 * Passwords of protected PDFs, given by the user (`files.unlock`), by case and original: the
 * key is `<caseId>/<sha-256 of the original>`. Kept in memory by default, so a restart asks
 * again; the desktop app keeps them in the system keychain instead (src/main/passwords.ts).
 * Never written in plain text.
 */
export interface PasswordStore {
  get(key: string): string | undefined;
  set(key: string, password: string): void;
  /** Forget every password whose key starts with `prefix` (a case's, when it is deleted). */
  forget(prefix: string): void;
}

export const passwordKey = (caseId: string, sha256: string): string => `${caseId}/${sha256}`;

export class MemoryPasswords implements PasswordStore {
  private readonly map = new Map<string, string>();
  get(key: string): string | undefined {
    return this.map.get(key);
  }
  set(key: string, password: string): void {
    this.map.set(key, password);
  }
  forget(prefix: string): void {
    for (const key of [...this.map.keys()]) if (key.startsWith(prefix)) this.map.delete(key);
  }
}
