/**
 * Email as a document: an .eml (RFC 5322 + MIME, read by postal-mime) or an Outlook .msg (read by
 * @kenjiuno/msgreader). The message's headers (From, To, Cc, Date, Subject) are its first unit and
 * its metadata; its body (plain text, or the HTML body as text) follows. Each attachment comes
 * back as a child file (its bytes), which ingest reads through the normal pipeline — nested
 * emails included. Inline images of an HTML body (logos, signatures) are not attachments.
 */
import { LoadError, type ParsedDoc } from '../loaders';
import type { ChildFile, EmailMeta } from '../../domain/index';
import { htmlToParagraphs, rtfToParagraphs } from './text-formats';
import { unitsDocument, type TextUnit } from './units';

const NO_TEXT = 'the email has no text (no subject, body or headers)';

/** "Jane Doe <jane@firm.com>" from the address objects of either reader. */
function addressText(list: { name?: string; address?: string; email?: string }[]): string {
  return list
    .map((a) => {
      const mail = a.address ?? a.email ?? '';
      return a.name && mail && a.name !== mail ? `${a.name} <${mail}>` : a.name || mail;
    })
    .filter(Boolean)
    .join(', ');
}

/** The header unit and the body unit of a message. */
function emailUnits(meta: EmailMeta, body: string[]): TextUnit[] {
  const lines = [
    meta.from && `From: ${meta.from}`,
    meta.to && `To: ${meta.to}`,
    meta.cc && `Cc: ${meta.cc}`,
    meta.date && `Date: ${meta.date}`,
    meta.subject && `Subject: ${meta.subject}`,
    meta.attachments.length ? `Attachments: ${meta.attachments.join(', ')}` : '',
  ].filter(Boolean);
  return [
    { label: 'Email header', paragraphs: lines.length ? [lines.join('\n')] : [] },
    { label: 'Email body', paragraphs: body },
  ];
}

/** An attachment's file name: its own, else one made of the subject or the type; never a path. */
export function attachmentName(given: string | undefined, fallback: string, ext: string): string {
  const base = (given ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  if (base && base !== '.' && base !== '..') return base;
  const safe =
    fallback
      .replace(/[\\/\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 80) || 'attachment';
  return ext ? `${safe}.${ext}` : safe;
}

/** Names made unique within one message ("scan.pdf", "scan (2).pdf"). */
function uniqueNames(children: ChildFile[]): ChildFile[] {
  const seen = new Map<string, number>();
  return children.map((c) => {
    const key = c.name.toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n === 1) return c;
    const dot = c.name.lastIndexOf('.');
    return { ...c, name: dot > 0 ? `${c.name.slice(0, dot)} (${n})${c.name.slice(dot)}` : `${c.name} (${n})` };
  });
}

const EXT_BY_TYPE: Record<string, string> = {
  'message/rfc822': 'eml',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/html': 'html',
};

function isoDate(d: Date | undefined | null): string {
  return d && !Number.isNaN(d.getTime()) ? d.toISOString().slice(0, 10) : '';
}

/** "2023-05-02 14:03 UTC" */
function dateText(d: Date | undefined | null): string {
  return d && !Number.isNaN(d.getTime()) ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
}

function emailDocument(meta: EmailMeta, body: string[], children: ChildFile[]): ParsedDoc {
  const doc = unitsDocument(emailUnits(meta, body), NO_TEXT);
  return { ...doc, email: meta, children: uniqueNames(children) };
}

/** An .eml file (postal-mime: an attached message stays an attachment, read as an email of its own). */
export async function loadEml(bytes: Uint8Array): Promise<ParsedDoc> {
  const PostalMime = (await import('postal-mime')).default;
  let mail: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    mail = await PostalMime.parse(bytes, {
      forceRfc822Attachments: true,
      attachmentEncoding: 'arraybuffer',
      maxNestingDepth: 64,
    });
  } catch (err) {
    throw new LoadError('failed', `damaged email file, it could not be read (${(err as Error).message.slice(0, 120)})`);
  }
  type Address = NonNullable<typeof mail.from>;
  const addr = (list: Address[] | Address | undefined) =>
    addressText(
      (Array.isArray(list) ? list : list ? [list] : []).flatMap((a) =>
        'group' in a && a.group ? a.group : [a as { name: string; address: string }],
      ),
    );
  // Inline images of an HTML body (a logo, a signature) are part of the message, not attachments.
  const files = mail.attachments.filter((a) => !(a.related && a.disposition !== 'attachment'));
  const children = files.map<ChildFile>((a) => ({
    name: attachmentName(a.filename ?? undefined, mail.subject || 'attachment', EXT_BY_TYPE[a.mimeType] ?? ''),
    bytes:
      typeof a.content === 'string' ? new TextEncoder().encode(a.content) : new Uint8Array(a.content as ArrayBuffer),
  }));
  const date = mail.date ? new Date(mail.date) : undefined;
  const meta: EmailMeta = {
    from: addr(mail.from),
    to: addr(mail.to),
    cc: addr(mail.cc),
    date: dateText(date),
    iso_date: isoDate(date),
    subject: mail.subject ?? '',
    attachments: children.map((c) => c.name),
  };
  const body =
    mail.text && /\S/.test(mail.text) ? [mail.text] : mail.html ? htmlToParagraphs(mail.html, { title: false }) : [];
  return emailDocument(meta, body, children);
}

type MsgFields = ReturnType<import('@kenjiuno/msgreader').default['getFileData']>;

/**
 * The package's class. It is CommonJS compiled from ES modules (`exports.default = MsgReader`):
 * Node's own import() gives the whole exports object as `default` (the class one level down), as
 * in the app's build, where tsx unwraps it once.
 */
function msgReaderClass(mod: typeof import('@kenjiuno/msgreader')): typeof import('@kenjiuno/msgreader').default {
  const exported = mod.default as unknown as { default?: typeof mod.default };
  return exported.default ?? mod.default;
}

/** An Outlook .msg file. */
export async function loadMsg(bytes: Uint8Array): Promise<ParsedDoc> {
  const MsgReader = msgReaderClass(await import('@kenjiuno/msgreader'));
  let reader: InstanceType<typeof MsgReader>;
  let data: MsgFields;
  try {
    reader = new MsgReader(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    data = reader.getFileData();
    if (data.error) throw new Error(data.error);
  } catch (err) {
    throw new LoadError(
      'failed',
      `damaged Outlook message (.msg), it could not be read (${(err as Error).message.slice(0, 120)})`,
    );
  }
  const recipients = (type: string) =>
    addressText(
      (data.recipients ?? [])
        .filter((r) => (r.recipType ?? 'to') === type)
        .map((r) => ({ name: r.name, email: r.smtpAddress || r.email })),
    );
  const sent = data.clientSubmitTime ?? data.messageDeliveryTime ?? data.creationTime;
  const date = sent ? new Date(sent) : undefined;
  const children: ChildFile[] = [];
  for (const att of data.attachments ?? []) {
    if (att.attachmentHidden) continue;
    try {
      const got = reader.getAttachment(att);
      const name = attachmentName(
        att.innerMsgContent
          ? `${att.name || got.fileName || 'message'}.msg`
          : got.fileName || att.fileName || att.fileNameShort,
        data.subject || 'attachment',
        '',
      );
      children.push({ name, bytes: got.content });
    } catch (err) {
      children.push({
        name: attachmentName(att.fileName || att.fileNameShort || att.name, 'attachment', ''),
        reason: `this attachment could not be taken out of the message (${(err as Error).message.slice(0, 80)})`,
      });
    }
  }
  const meta: EmailMeta = {
    from: addressText([{ name: data.senderName, email: data.senderSmtpAddress || data.senderEmail }]),
    to: recipients('to'),
    cc: recipients('cc'),
    date: dateText(date),
    iso_date: isoDate(date),
    subject: data.subject ?? '',
    attachments: children.map((c) => c.name),
  };
  return emailDocument(meta, await msgBody(data), children);
}

/** A message's body: its plain text, else its HTML as text, else its compressed RTF (Outlook's rich text) as text. */
export async function msgBody(
  data: Pick<MsgFields, 'body' | 'bodyHtml' | 'html' | 'compressedRtf'>,
): Promise<string[]> {
  if (data.body && /\S/.test(data.body)) return [data.body];
  const html = data.bodyHtml ?? (data.html ? new TextDecoder().decode(data.html) : '');
  if (html) return htmlToParagraphs(html, { title: false });
  if (!data.compressedRtf?.length) return [];
  try {
    const { decompressRTF } = await import('@kenjiuno/decompressrtf');
    return await rtfToParagraphs(Uint8Array.from(decompressRTF(Array.from(data.compressedRtf))));
  } catch {
    return [];
  }
}
