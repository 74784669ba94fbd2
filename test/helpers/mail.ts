/**
 * Emails and archives for the tests, written by the libraries' own writers: nodemailer's
 * MailComposer for .eml (MIME, attachments, a message attached to a message) and fflate for ZIP.
 */
import MailComposer from 'nodemailer/lib/mail-composer';
import { zipSync } from 'fflate';

export interface MailSpec {
  from: string;
  to: string;
  cc?: string;
  subject: string;
  date: Date;
  text?: string;
  html?: string;
  attachments?: { filename: string; content: Uint8Array | string; contentType?: string }[];
}

/** An RFC 5322 message with MIME attachments. */
export async function eml(spec: MailSpec): Promise<Buffer> {
  const mail = new MailComposer({
    from: spec.from,
    to: spec.to,
    ...(spec.cc ? { cc: spec.cc } : {}),
    subject: spec.subject,
    date: spec.date,
    ...(spec.text !== undefined ? { text: spec.text } : {}),
    ...(spec.html !== undefined ? { html: spec.html } : {}),
    attachments: (spec.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: typeof a.content === 'string' ? a.content : Buffer.from(a.content),
      ...(a.contentType ? { contentType: a.contentType } : {}),
    })),
  });
  return mail.compile().build();
}

/** A ZIP of `files` (path → bytes or text); stored (level 0) entries when `store` is set. */
export function zip(files: Record<string, Uint8Array | string>, store = false): Uint8Array {
  const entries = Object.fromEntries(
    Object.entries(files).map(([k, v]) => [
      k,
      [typeof v === 'string' ? new TextEncoder().encode(v) : v, { level: store ? 0 : 6 }] as const,
    ]),
  );
  return zipSync(entries as Parameters<typeof zipSync>[0]);
}

/** Mark the entry `name` of a ZIP as encrypted (general purpose bit 0, local and central headers), as an encrypting archiver would. */
export function markEncrypted(archive: Uint8Array, name: string): Uint8Array {
  const out = Uint8Array.from(archive);
  const view = Buffer.from(out.buffer);
  const needle = Buffer.from(name);
  for (let i = 0; i + 4 <= view.length; i++) {
    const sig = view.readUInt32LE(i);
    if (
      sig === 0x04034b50 &&
      view.subarray(i + 30, i + 30 + needle.length).equals(needle) &&
      view.readUInt16LE(i + 26) === needle.length
    )
      view[i + 6]! |= 1;
    if (
      sig === 0x02014b50 &&
      view.subarray(i + 46, i + 46 + needle.length).equals(needle) &&
      view.readUInt16LE(i + 28) === needle.length
    )
      view[i + 8]! |= 1;
  }
  return out;
}
