/**
 * Files inside files: an email's attachments (a nested email's too) and an archive's files are
 * read as documents of their own, listed under their container, searchable and cited; limits hold.
 */
import { promises as fs, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { FileInfo } from '../../src/shared/contract/ingest';
import { corpusDir, tempHome } from '../helpers/home';
import { eml, markEncrypted, zip } from '../helpers/mail';
import { msgBody } from '../../src/core/reader/formats/email';
import { multiPagePdf, writeFixtureSet } from '../fixtures/pdfs';
import { fanOutZip, manyFilesZip } from '../fixtures/hostile';
import { MANIFEST_FILE } from '../../src/core/documents/case-store';

const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

async function setup(limits: Record<string, number> = {}) {
  const home = tempHome('casefile-containers-');
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false, limits } });
  engines.push(engine);
  const c = await engine.router.call('cases.create', { name: 'Smith v. Jones' });
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  return { home, engine, caseId: c.id, drop, call: engine.router.call.bind(engine.router) };
}

const byName = (files: FileInfo[]) => Object.fromEntries(files.map((f) => [f.name, f]));

async function ingest(call: Engine['router']['call'], caseId: string, paths: string[]) {
  const run = await call('ingest.start', { case_id: caseId, paths });
  if (!('results' in run)) throw new Error('expected results');
  return Object.fromEntries(run.results.map((r) => [r.name, r]));
}

async function noticeEmail(): Promise<Buffer> {
  const inner = await eml({
    from: 'Opposing Counsel <oc@defense.example>',
    to: 'Jane Doe <jane@firm.example>',
    subject: 'Draft settlement terms',
    date: new Date('2023-04-28T09:15:00Z'),
    text: 'Our client proposes a settlement payment of forty thousand dollars.',
    attachments: [
      {
        filename: 'terms.txt',
        content: 'Settlement term sheet: payment within thirty days of signature, mutual release.',
      },
    ],
  });
  return eml({
    from: 'Jane Doe <jane@firm.example>',
    to: 'Client <client@example.com>',
    cc: 'Paralegal <para@firm.example>',
    subject: 'Re: Notice of default',
    date: new Date('2023-05-02T14:03:00Z'),
    text: 'Please find attached the notice of default served on the landlord, and the lease.\n\nThe cure period under the lease runs until June 1.',
    attachments: [
      { filename: 'notice.pdf', content: await multiPagePdf(2, 6, 'zephyrnotice') },
      { filename: 'lease.docx', content: await fs.readFile(path.join(corpusDir, 'freelaw-doctor/word-docx.docx')) },
      { filename: 'forwarded.eml', content: inner, contentType: 'message/rfc822' },
    ],
  });
}

describe('files inside files', () => {
  it('an email is a document with its headers; its attachments (and a nested email’s) are read, listed under it, found and cited', async () => {
    const { home, engine, caseId, drop, call } = await setup();
    await writeFixtureSet(drop, { 'correspondence/notice.eml': await noticeEmail() });
    const results = await ingest(call, caseId, [drop]);
    const top = 'correspondence/notice.eml';
    expect(results[top]).toMatchObject({ status: 'indexed' });
    for (const child of ['notice.pdf', 'lease.docx', 'forwarded.eml', 'forwarded.eml/terms.txt'])
      expect(results[`${top}/${child}`], child).toMatchObject({ status: 'indexed' });

    const files = byName((await call('files.list', { case_id: caseId })).files);
    const email = files[top]!;
    expect(email).toMatchObject({ kind: 'email', type: 'correspondence', date: '2023-05-02', children: 3 });
    expect(email.email).toMatchObject({
      from: 'Jane Doe <jane@firm.example>',
      to: 'Client <client@example.com>',
      cc: 'Paralegal <para@firm.example>',
      subject: 'Re: Notice of default',
      iso_date: '2023-05-02',
      attachments: ['notice.pdf', 'lease.docx', 'forwarded.eml'],
    });
    expect(files[`${top}/notice.pdf`]).toMatchObject({
      kind: 'pdf',
      pages: 2,
      parent: { id: email.id, name: top, subject: 'Re: Notice of default', date: '2023-05-02' },
    });
    const forwarded = files[`${top}/forwarded.eml`]!;
    expect(forwarded).toMatchObject({ kind: 'email', children: 1, email: { subject: 'Draft settlement terms' } });
    expect(files[`${top}/forwarded.eml/terms.txt`]).toMatchObject({
      parent: { id: forwarded.id, subject: 'Draft settlement terms' },
    });

    // The email's own text holds its headers and body; a search finds words of each part, in the right file.
    const content = await call('files.read', { case_id: caseId, file_id: email.id });
    expect(content.text).toMatch(
      /^From: Jane Doe <jane@firm\.example>\nTo: Client <client@example\.com>\nCc: Paralegal <para@firm\.example>\nDate: 2023-05-02 14:03 UTC\nSubject: Re: Notice of default\nAttachments: notice\.pdf, lease\.docx, forwarded\.eml/,
    );
    const hit = async (query: string) =>
      (await call('search', { case_id: caseId, query, mode: 'keyword', k: 3 })).results[0];
    expect((await hit('cure period landlord'))?.file_name).toBe(top);
    const inPdf = await hit('zephyrnotice');
    expect(inPdf).toMatchObject({ file_name: `${top}/notice.pdf` });
    // The citation opens the attachment's page with boxes on the words.
    const page = await call('citations.page', {
      case_id: caseId,
      file_id: inPdf!.file_id,
      page: inPdf!.pages[0],
      start: inPdf!.start,
      end: inPdf!.start + 12,
    });
    expect(page.rects.length).toBeGreaterThan(0);
    expect((await hit('mutual release term sheet'))?.file_name).toBe(`${top}/forwarded.eml/terms.txt`);
    expect((await hit('forty thousand dollars settlement'))?.file_name).toBe(`${top}/forwarded.eml`);

    // The agent's inventory lists the email with its sender and subject, its attachments under it;
    // grepCase reads inside the attachments.
    const listing = await call('tools.findFiles', { case_id: caseId });
    expect(listing.files.find((f) => f.name === top)).toMatchObject({
      email: { from: 'Jane Doe <jane@firm.example>', subject: 'Re: Notice of default' },
      children: 3,
      date: '2023-05-02',
    });
    expect(listing.files.find((f) => f.name === `${top}/notice.pdf`)).toMatchObject({ parent: top });
    const grep = await call('tools.grepCase', { case_id: caseId, pattern: 'mutual release' });
    expect(grep.files.map((f) => f.file_name)).toEqual([`${top}/forwarded.eml/terms.txt`]);
    const script = path.join(home, 'inventory.json');
    writeFileSync(
      script,
      JSON.stringify({
        steps: [
          { thought: 'Inventory.', action: 'findFiles', action_input: {} },
          { final: 'The email has three attachments.' },
        ],
      }),
    );
    const turn = await call('chat.ask', {
      case_id: caseId,
      question: 'What was attached to the notice email?',
      model: `scripted:${script}`,
    });
    const seen = turn.steps.find((st) => st.action === 'findFiles')!.observation!;
    expect(seen).toContain(
      `- ${top} (id=${email.id}, v1, email from Jane Doe <jane@firm.example>, subject "Re: Notice of default", 2023-05-02, 3 attachments)`,
    );
    expect(seen).toMatch(
      new RegExp(
        `\\n  - ${top.replace(/\./g, '\\.')}/notice\\.pdf \\(id=[^,]+, v1, other, 2 pages, attached to ${top.replace(/\./g, '\\.')}\\)`,
      ),
    );

    // The same folder again: nothing new, nothing doubled.
    const again = await ingest(call, caseId, [drop]);
    expect(Object.values(again).map((r) => r.status)).toEqual(['unchanged']);
    expect((await call('files.list', { case_id: caseId })).files).toHaveLength(5);

    // Removing the email removes what was taken out of it.
    await call('files.remove', { case_id: caseId, file_id: email.id });
    expect((await call('files.list', { case_id: caseId })).files).toEqual([]);
    expect(
      readdirSync(path.join(engine.cases.caseDir(caseId), 'files')).filter((n) => /^[0-9a-f]{64}$/.test(n)),
    ).toEqual([]);
  });

  it('the same attachment in two emails is stored once and listed under each', async () => {
    const { engine, caseId, drop, call } = await setup();
    const pdf = await multiPagePdf(1, 4, 'quillmark');
    const mail = (subject: string, day: number) =>
      eml({
        from: 'a@x.example',
        to: 'b@y.example',
        subject,
        date: new Date(Date.UTC(2023, 0, day)),
        text: `About ${subject}.`,
        attachments: [{ filename: 'exhibit.pdf', content: pdf }],
      });
    await writeFixtureSet(drop, { 'one.eml': await mail('First', 3), 'two.eml': await mail('Second', 9) });
    await ingest(call, caseId, [drop]);
    const files = byName((await call('files.list', { case_id: caseId })).files);
    expect(files['one.eml/exhibit.pdf']).toMatchObject({ status: 'indexed', parent: { subject: 'First' } });
    expect(files['two.eml/exhibit.pdf']).toMatchObject({ status: 'indexed', parent: { subject: 'Second' } });
    expect(files['one.eml/exhibit.pdf']!.versions[0]!.sha256).toBe(files['two.eml/exhibit.pdf']!.versions[0]!.sha256);
    const blobs = readdirSync(path.join(engine.cases.caseDir(caseId), 'files')).filter((n) => /^[0-9a-f]{64}$/.test(n));
    expect(blobs).toHaveLength(3); // two emails, one PDF
  });

  it('a ZIP keeps its folders; an encrypted entry and one over the limits are listed with the reason, the rest is read', async () => {
    const { caseId, drop, call } = await setup({ maxFileBytes: 64 * 1024 });
    const big = new Uint8Array(200 * 1024).fill(0x41); // 200 KB of text: over the 64 KB file limit once unpacked
    const archive = markEncrypted(
      zip({
        'production/vol1/letter.txt': 'Letter of March 3, 2021: the tenant withheld rent for the month of March.',
        'production/vol2/memo.md': '# Memo\n\nThe inspection found water damage in the kitchen.',
        'production/secret.txt': 'encrypted words',
        'production/huge.txt': big,
        '__MACOSX/production/._letter.txt': 'junk',
      }),
      'production/secret.txt',
    );
    await writeFixtureSet(drop, { 'from-defense.zip': archive });
    const results = await ingest(call, caseId, [drop]);
    expect(results['from-defense.zip']).toMatchObject({ status: 'indexed' });
    expect(results['from-defense.zip/production/vol1/letter.txt']).toMatchObject({ status: 'indexed' });
    expect(results['from-defense.zip/production/vol2/memo.md']).toMatchObject({ status: 'indexed' });
    expect(results['from-defense.zip/production/secret.txt']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^encrypted inside the archive/),
    });
    expect(results['from-defense.zip/production/huge.txt']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^too large to unpack/),
    });
    expect(Object.keys(results).some((n) => n.includes('__MACOSX'))).toBe(false);
    const files = byName((await call('files.list', { case_id: caseId })).files);
    expect(files['from-defense.zip']).toMatchObject({ kind: 'archive', children: 4 });
    expect(files['from-defense.zip/production/vol1/letter.txt']).toMatchObject({
      parent: { name: 'from-defense.zip' },
    });
    const hit = (await call('search', { case_id: caseId, query: 'water damage kitchen', mode: 'keyword', k: 1 }))
      .results[0];
    expect(hit?.file_name).toBe('from-defense.zip/production/vol2/memo.md');
  });

  it('containers nested deeper than the limit are listed, not read; an archive of too many files is refused plainly', async () => {
    const { caseId, drop, call } = await setup({ maxNestingDepth: 1, maxArchiveEntries: 3 });
    const inner = zip({ 'deep/note.txt': 'The deepest note.' });
    await writeFixtureSet(drop, {
      'outer.zip': zip({ 'inner.zip': inner, 'top.txt': 'A note at the top.' }),
      'many.zip': zip({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c', 'd.txt': 'd' }),
    });
    const results = await ingest(call, caseId, [drop]);
    expect(results['outer.zip/top.txt']).toMatchObject({ status: 'indexed' });
    expect(results['outer.zip/inner.zip']).toMatchObject({ status: 'indexed' });
    expect(results['outer.zip/inner.zip/deep/note.txt']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^not read: it is nested more than 1 level deep/),
    });
    expect(results['many.zip']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^the archive holds 4 files, more than 3/),
    });
  });
});

describe('what one dropped file may expand to', () => {
  /** Archives inside archives, `levels` deep, `width` files each (each a real copy, so no entry overlaps another). */
  function nestedZips(levels: number, width: number): Uint8Array {
    let level: Uint8Array = zip(
      Object.fromEntries(
        Array.from({ length: width }, (_, i) => [`note-${i}.txt`, `Note ${i} of the bottom archive.`]),
      ),
    );
    for (let l = 1; l < levels; l++) {
      const inner = level;
      level = zip(Object.fromEntries(Array.from({ length: width }, (_, i) => [`box-${i}.zip`, inner])));
    }
    return level;
  }

  it('archives inside archives stop at the cap on files in all, across every level, and the dropped archive says so', async () => {
    const { engine, caseId, drop, call } = await setup({ maxInnerFiles: 30 });
    await writeFixtureSet(drop, { 'fan.zip': nestedZips(3, 5), 'memo.txt': 'A memo beside the archive.' });
    const results = await ingest(call, caseId, [drop]);
    // 5 + 25 + 125 files inside, but only the first 30 are taken.
    expect(Object.keys(results).filter((n) => n.startsWith('fan.zip/'))).toHaveLength(30);
    expect(results['fan.zip']).toMatchObject({
      status: 'indexed',
      reason: expect.stringMatching(
        /^it holds more than 30 files in all, counting the files inside the files it holds: the first 30 were added, the rest were left out\. .*CASEFILE_MAX_INNER_FILES/,
      ),
    });
    expect(results['memo.txt']).toMatchObject({ status: 'indexed' });
    const files = byName((await call('files.list', { case_id: caseId })).files);
    expect(Object.keys(files).filter((n) => n.startsWith('fan.zip/'))).toHaveLength(30);
    expect(files['fan.zip']!.reason).toMatch(/^it holds more than 30 files in all/);
    // A container whose files were left out says how many.
    expect(files['fan.zip/box-0.zip/box-0.zip']).toMatchObject({
      status: 'indexed',
      reason: expect.stringMatching(
        /^5 of the files inside it were left out: the file it came from holds more than 30 files in all/,
      ),
    });
    // No copy of a file left out is kept.
    const kept = new Set(Object.values(files).flatMap((f) => f.versions.map((v) => v.sha256)));
    const blobs = readdirSync(path.join(engine.cases.caseDir(caseId), 'files')).filter((n) => /^[0-9a-f]{64}$/.test(n));
    expect(blobs.filter((b) => !kept.has(b))).toEqual([]);
  });

  it('the fan-out zip (three levels of 200 records pointing at the same inner zip) is refused at the top, with the reason', async () => {
    const { caseId, drop, call } = await setup();
    await writeFixtureSet(drop, { 'fan-out.zip': fanOutZip(3, 200) });
    const results = await ingest(call, caseId, [drop]);
    expect(results['fan-out.zip']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(
        /^damaged or hostile ZIP archive \(199 of its entries share their bytes with others, the trick of a zip bomb\)/,
      ),
    });
    expect(Object.keys(results)).toEqual(['fan-out.zip']);
  });

  it('recording each file of a 30-file archive appends to the manifest log: files.json is written a few times a run, not once a file', async () => {
    const { caseId, drop, call } = await setup();
    await writeFixtureSet(drop, { 'notes.zip': manyFilesZip(30) });
    const rename = vi.spyOn(fs, 'rename');
    try {
      const results = await ingest(call, caseId, [drop]);
      expect(Object.values(results).filter((r) => r.status === 'indexed')).toHaveLength(31);
      const manifestWrites = rename.mock.calls.filter(([, to]) => path.basename(String(to)) === MANIFEST_FILE);
      expect(manifestWrites.length).toBeLessThanOrEqual(3);
    } finally {
      rename.mockRestore();
    }
    expect((await call('files.list', { case_id: caseId })).files).toHaveLength(31);
  });
});

describe('Outlook messages', () => {
  it('an Outlook .msg is an email; the .eml attached to it is read as an email of its own under it', async () => {
    const { caseId, drop, call } = await setup();
    const msg = gunzipSync(
      await fs.readFile(path.join(import.meta.dirname, '../fixtures/msg/attach-sample-eml-sent.msg.gz')),
    );
    await writeFixtureSet(drop, { 'mail/Attach sample.msg': msg });
    const results = await ingest(call, caseId, [drop]);
    expect(results['mail/Attach sample.msg']).toMatchObject({ status: 'indexed' });
    expect(results['mail/Attach sample.msg/sample.eml']).toMatchObject({ status: 'indexed' });
    const files = byName((await call('files.list', { case_id: caseId })).files);
    const message = files['mail/Attach sample.msg']!;
    expect(message).toMatchObject({
      kind: 'email',
      children: 1,
      date: '2025-12-04',
      email: {
        subject: 'Attach sample.eml',
        to: expect.stringContaining('hmailuser@hmailserver.test'),
        attachments: ['sample.eml'],
      },
    });
    expect(files['mail/Attach sample.msg/sample.eml']).toMatchObject({
      kind: 'email',
      parent: { id: message.id, subject: 'Attach sample.eml', date: '2025-12-04' },
    });
    const text = (await call('files.read', { case_id: caseId, file_id: message.id })).text;
    expect(text).toMatch(/Subject: Attach sample\.eml/);
    expect(text).toMatch(/Sent from my Windows 10/);
  });
});

describe('an Outlook message with only rich text', () => {
  it('its body is read from the compressed RTF when it has no plain or HTML body', async () => {
    const MsgReader = (await import('@kenjiuno/msgreader')).default;
    const msg = gunzipSync(
      await fs.readFile(path.join(import.meta.dirname, '../fixtures/msg/attach-sample-eml-sent.msg.gz')),
    );
    const data = new MsgReader(
      msg.buffer.slice(msg.byteOffset, msg.byteOffset + msg.byteLength) as ArrayBuffer,
    ).getFileData();
    expect(data.compressedRtf?.length).toBeGreaterThan(0);
    const body = await msgBody({ compressedRtf: data.compressedRtf });
    expect(body.join('\n')).toContain('Sent from my Windows 10');
    expect(await msgBody({})).toEqual([]);
  });
});
