import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** A short random id: `prefix` + `length` base32 characters (5 bits each). */
export function newId(prefix = '', length = 12): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}
