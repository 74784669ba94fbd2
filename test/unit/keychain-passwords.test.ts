import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeychainPasswords, PASSWORDS_FILE, type Encryption } from '../../src/main/passwords';
import { tempHome } from '../helpers/home';

/** Electron's safeStorage at the boundary: a reversible cipher keyed per "user" (XOR with a key byte). */
function keychain(key: number, backend = 'gnome_libsecret'): Encryption {
  const xor = (b: Buffer) => Buffer.from(b.map((x) => x ^ key));
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain) => Buffer.concat([Buffer.from('v10'), xor(Buffer.from(plain, 'utf8'))]),
    decryptString: (sealed) => {
      if (!sealed.subarray(0, 3).equals(Buffer.from('v10'))) throw new Error('not sealed');
      const plain = xor(sealed.subarray(3)).toString('utf8');
      if (!/^[\x20-\x7e]*$/.test(plain)) throw new Error('another key');
      return plain;
    },
  };
}

describe('PDF passwords in the desktop app (system keychain)', () => {
  it('kept across restarts, sealed on disk (never in plain text), forgotten with their case', async () => {
    const home = tempHome();
    const store = new KeychainPasswords(home, keychain(0x5a));
    store.set('c1/abc', 'lawyer123');
    store.set('c2/def', 'other-pass');
    await store.flushed();
    const onDisk = readFileSync(path.join(home, PASSWORDS_FILE), 'utf8');
    expect(onDisk).not.toContain('lawyer123');
    expect(Object.keys(JSON.parse(onDisk) as object).sort()).toEqual(['c1/abc', 'c2/def']);

    const restarted = new KeychainPasswords(home, keychain(0x5a));
    expect(restarted.get('c1/abc')).toBe('lawyer123');
    restarted.forget('c1/');
    await restarted.flushed();
    expect(new KeychainPasswords(home, keychain(0x5a)).get('c1/abc')).toBeUndefined();
    expect(new KeychainPasswords(home, keychain(0x5a)).get('c2/def')).toBe('other-pass');
    // Sealed for another user: not readable, so asked again (no error).
    expect(new KeychainPasswords(home, keychain(0x33)).get('c2/def')).toBeUndefined();
  });

  it('without a real keychain (Linux basic_text, or none): memory only, nothing written', async () => {
    const home = tempHome();
    const store = new KeychainPasswords(home, keychain(0x5a, 'basic_text'));
    store.set('c1/abc', 'lawyer123');
    await store.flushed();
    expect(store.get('c1/abc')).toBe('lawyer123');
    expect(existsSync(path.join(home, PASSWORDS_FILE))).toBe(false);
  });
});
