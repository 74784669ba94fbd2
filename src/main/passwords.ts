/**
 * The desktop app's store of protected PDFs' passwords, encrypted with the system keychain
 * (Electron's safeStorage) in `<data home>/pdf-passwords.json`, so a restart does not ask again.
 * Where the keychain cannot encrypt (safeStorage's `basic_text` backend), passwords stay in memory
 * only; never written in plain text. `safeStorage` is injected so this can be tested without Electron.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/util/fs';
import { MemoryPasswords, type PasswordStore } from '../core/util/passwords';

/** The part of Electron's safeStorage this store uses. */
export interface Encryption {
  isEncryptionAvailable(): boolean;
  getSelectedStorageBackend?(): string;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export const PASSWORDS_FILE = 'pdf-passwords.json';

export class KeychainPasswords implements PasswordStore {
  private readonly memory = new MemoryPasswords();
  private readonly file: string;
  /** key → encrypted password (base64), as on disk. */
  private readonly sealed: Record<string, string> = {};
  private writing: Promise<void> = Promise.resolve();

  constructor(
    home: string,
    private readonly encryption: Encryption,
  ) {
    this.file = path.join(home, PASSWORDS_FILE);
    if (!this.persistent) return;
    let saved: Record<string, string> = {};
    try {
      saved = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch {
      saved = {}; // none yet, or unreadable: the user is asked again
    }
    for (const [key, value] of Object.entries(saved)) {
      try {
        this.memory.set(key, encryption.decryptString(Buffer.from(value, 'base64')));
        this.sealed[key] = value;
      } catch {
        // Sealed by another user or machine: asked again.
      }
    }
  }

  /** Whether passwords outlive the process (a real keychain encrypts them). */
  get persistent(): boolean {
    return this.encryption.isEncryptionAvailable() && this.encryption.getSelectedStorageBackend?.() !== 'basic_text';
  }

  get(key: string): string | undefined {
    return this.memory.get(key);
  }

  set(key: string, password: string): void {
    this.memory.set(key, password);
    if (!this.persistent) return;
    this.sealed[key] = this.encryption.encryptString(password).toString('base64');
    this.save();
  }

  forget(prefix: string): void {
    this.memory.forget(prefix);
    let changed = false;
    for (const key of Object.keys(this.sealed)) {
      if (key.startsWith(prefix)) {
        delete this.sealed[key];
        changed = true;
      }
    }
    if (changed) this.save();
  }

  /** Writes in order, each the whole file, atomically. */
  private save(): void {
    const text = `${JSON.stringify(this.sealed, null, 2)}\n`;
    this.writing = this.writing
      .then(() => writeFileAtomic(this.file, text))
      .catch((err: unknown) =>
        console.error(`casefile: saving PDF passwords to the keychain file failed: ${(err as Error).message}`),
      );
  }

  /** Resolves when every change so far is on disk. */
  flushed(): Promise<void> {
    return this.writing;
  }
}
