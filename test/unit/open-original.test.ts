import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { copyName, OpenCopies, openOriginalInSystemViewer } from '../../src/main/open-original';
import { multiPagePdf } from '../fixtures/pdfs';
import { tempHome } from '../helpers/home';

const posix = process.platform !== 'win32';
let engine: Engine;
let caseId: string;
let ids: Record<string, string>;
let tmp: string;

beforeAll(async () => {
  const home = tempHome();
  tmp = path.join(home, 'system-tmp');
  await fs.mkdir(tmp);
  engine = await Engine.open({ home });
  const src = path.join(home, 'in');
  await fs.mkdir(src, { recursive: true });
  const pdf = await multiPagePdf(1, 4, 'scan');
  // What an email's attachments can be named: a script, an HTML application, a PDF called a batch file or a program.
  const files: Record<string, Uint8Array | string> = {
    'Letter to client.txt': 'Dear client, the hearing is on 3 May 2024.',
    'minutes.js': 'Minutes of the meeting of 3 May 2024. Present: the board.',
    'invoice.hta':
      '<html><head><title>Invoice</title></head><body><p>Invoice 12</p><script>new ActiveXObject("WScript.Shell")</script></body></html>',
    'report.pdf.bat': pdf,
    'scan.pdf.exe': pdf,
    'setup.exe': Buffer.concat([Buffer.from('MZ'), Buffer.alloc(4000)]),
    'interview.mp3': Buffer.concat([Buffer.from('ID3'), Buffer.alloc(4000, 0)]),
  };
  for (const [name, data] of Object.entries(files)) await fs.writeFile(path.join(src, name), data);
  caseId = (await engine.router.call('cases.create', { name: 'Open test' })).id;
  await engine.router.call('ingest.start', { case_id: caseId, paths: [src] });
  const { files: listed } = await engine.router.call('files.list', { case_id: caseId });
  ids = Object.fromEntries(listed.map((f) => [f.name.split('/').pop()!, f.id]));
});

afterAll(async () => {
  await engine?.close();
});

async function openIn(copies: OpenCopies, name: string): Promise<string> {
  const opened: string[] = [];
  await openOriginalInSystemViewer(
    engine,
    { case_id: caseId, file_id: ids[name]! },
    async (f) => {
      opened.push(f);
      return '';
    },
    copies,
  );
  return opened[0]!;
}

describe('open in system viewer (Electron main)', () => {
  it('opens a private read-only copy under the real name; the stored original is untouched', async () => {
    const copies = new OpenCopies(tmp);
    const opened = await openIn(copies, 'Letter to client.txt');
    expect(path.basename(opened)).toBe('Letter to client.txt');
    expect(await fs.readFile(opened, 'utf8')).toContain('hearing is on 3 May 2024');
    // Read-only (root ignores the bits, so check them rather than a failed write).
    expect((await fs.stat(opened)).mode & 0o222).toBe(0);
    if (posix) {
      // Neither the copy nor its folder can be read by another user of the computer.
      expect((await fs.stat(opened)).mode & 0o077).toBe(0);
      expect((await fs.stat(path.dirname(opened))).mode & 0o777).toBe(0o700);
    }
    expect(path.dirname(path.dirname(opened))).toBe(tmp);
    // The copy is not the stored original: changing it leaves the case's file as it was.
    const original = await (await engine.openCases.open(caseId)).documents.originalPath(ids['Letter to client.txt']!);
    expect(path.resolve(opened)).not.toBe(path.resolve(original));
    await expect(
      openOriginalInSystemViewer(
        engine,
        { case_id: caseId, file_id: ids['Letter to client.txt']! },
        async () => 'no application is registered',
        copies,
      ),
    ).rejects.toMatchObject({ code: 'failed', message: expect.stringMatching(/could not open Letter to client\.txt/) });
    await expect(
      openOriginalInSystemViewer(engine, { case_id: '../x', file_id: 'f' }, async () => '', copies),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await copies.clear();
  });

  it('a script, an HTML application or a PDF named as a program opens under the type its content is, never its own extension', async () => {
    const copies = new OpenCopies(tmp);
    expect(path.basename(await openIn(copies, 'minutes.js'))).toBe('minutes.js.txt');
    expect(path.basename(await openIn(copies, 'invoice.hta'))).toBe('invoice.hta.html');
    expect(path.basename(await openIn(copies, 'report.pdf.bat'))).toBe('report.pdf.bat.pdf');
    expect(path.basename(await openIn(copies, 'scan.pdf.exe'))).toBe('scan.pdf.exe.pdf');
    // A recording Casefile does not read still opens in the user's own player.
    expect(path.basename(await openIn(copies, 'interview.mp3'))).toBe('interview.mp3');
    await copies.clear();
  });

  it('a program is refused, and nothing is handed to the system', async () => {
    const copies = new OpenCopies(tmp);
    const before = await fs.readdir(tmp);
    await expect(openIn(copies, 'setup.exe')).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/does not open setup\.exe with another program: .*could run a program/),
    });
    expect(await fs.readdir(tmp)).toEqual(before);
  });

  it('copies are removed at quit; a killed run’s copies at the next start, never a running one’s', async () => {
    const copies = new OpenCopies(tmp);
    const a = await openIn(copies, 'Letter to client.txt');
    const b = await openIn(copies, 'minutes.js');
    await copies.clear();
    await expect(fs.stat(path.dirname(a))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.stat(path.dirname(b))).rejects.toMatchObject({ code: 'ENOENT' });

    // A run that was killed: its process is gone, its copy is still there.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const leftover = path.join(tmp, `casefile-open-${dead}-AbC123`);
    await fs.mkdir(leftover, { mode: 0o700 });
    await fs.writeFile(path.join(leftover, 'minutes.txt'), 'x', { mode: 0o400 });
    // Another app window's copy, still open in its viewer; and a folder that is not ours at all.
    const running = await openIn(new OpenCopies(tmp), 'Letter to client.txt');
    const other = path.join(tmp, 'casefile-open-notes');
    await fs.mkdir(other);
    await new OpenCopies(tmp).sweep();
    await expect(fs.stat(leftover)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await fs.stat(running)).isFile()).toBe(true);
    expect((await fs.stat(other)).isDirectory()).toBe(true);
  });

  it('the copy’s name is safe on any system: no bidi override, no path, no reserved name', () => {
    expect(copyName('invoice\u202Etxt.exe', 1, ['pdf'])).toBe('invoice_txt.exe.pdf');
    expect(copyName('Re: minutes.pdf', 2, ['pdf'])).toBe('Re_ minutes (v2).pdf');
    expect(copyName('mail/attachments/CON', 1, ['txt'])).toBe('document_CON.txt');
    expect(copyName('Smith v. Jones', 1, ['txt', 'text'])).toBe('Smith v. Jones.txt');
    expect(copyName('photo.JPEG', 1, ['jpg', 'jpeg'])).toBe('photo.JPEG');
  });
});
