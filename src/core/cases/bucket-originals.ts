import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { AwsClient } from 'aws4fetch';
import { CasefileError } from '../../shared/errors';
import { TEMP_MARK } from '../util/fs';
import type { CaseStorage, ObjectStore, RemoteOriginals } from './object-store';

/** One request's failures before a call says the storage did not answer (aws4fetch retries 5xx and network errors). */
const RETRIES = 2;
/** Deletes in flight at once when a case's originals are removed. */
const PARALLEL_DELETES = 8;

/**
 * A bucket case's originals on the firm's S3-compatible storage, at `<case folder>/files/<sha256>`
 * beside its index: content-addressed like the case folder's `files/`, which keeps a copy of each
 * for reading. Requests are signed with SigV4 (aws4fetch); each original's sha256 is its payload
 * hash, so an upload is checked by the server and a download by its hash here.
 */
export class BucketOriginals implements RemoteOriginals {
  private readonly client: AwsClient;
  private readonly base: string;

  constructor(
    private readonly store: ObjectStore,
    private readonly storage: CaseStorage,
  ) {
    this.client = new AwsClient({
      accessKeyId: store.accessKeyId,
      secretAccessKey: store.secretAccessKey,
      service: 's3',
      region: store.region,
      retries: RETRIES,
    });
    const endpoint = new URL(store.endpoint);
    this.base = store.pathStyle
      ? `${endpoint.origin}/${storage.bucket}`
      : `${endpoint.protocol}//${storage.bucket}.${endpoint.host}`;
  }

  private get folder(): string {
    return `${this.storage.prefix}/files/`;
  }

  private url(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new CasefileError('invalid_input', `Not a sha256: ${sha256}`);
    return `${this.base}/${this.folder}${sha256}`;
  }

  private async send(url: string, init: RequestInit & { signal?: AbortSignal | undefined }): Promise<Response> {
    try {
      return await this.client.fetch(url, init);
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw this.unavailable((err as Error).message);
    }
  }

  private unavailable(detail: string): CasefileError {
    return CasefileError.withRemedy(
      'unavailable',
      `The firm’s object storage (${this.store.endpoint}) that holds this case’s original files did not answer (${detail}).`,
      {
        app: 'Try again in a moment; if it goes on, ask the firm’s administrator whether the storage is running.',
        cli: `Check that ${this.store.endpoint} is reachable, then try again.`,
      },
    );
  }

  private async failed(res: Response, what: string): Promise<CasefileError> {
    const body = (await res.text().catch(() => '')).replace(/\s+/g, ' ').slice(0, 200);
    return this.unavailable(`${what}: HTTP ${res.status}${body ? ` ${body}` : ''}`);
  }

  async list(signal?: AbortSignal): Promise<Set<string>> {
    const found = new Set<string>();
    let token = '';
    do {
      const query = new URLSearchParams({ 'list-type': '2', prefix: this.folder });
      if (token) query.set('continuation-token', token);
      const res = await this.send(`${this.base}?${query}`, { signal });
      if (!res.ok) throw await this.failed(res, 'listing the originals');
      const xml = await res.text();
      for (const m of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) {
        const sha = m[1]!.slice(this.folder.length);
        if (/^[0-9a-f]{64}$/.test(sha)) found.add(sha);
      }
      token = /<IsTruncated>true<\/IsTruncated>/.test(xml)
        ? (/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '')
        : '';
    } while (token);
    return found;
  }

  async put(sha256: string, file: string, signal?: AbortSignal): Promise<void> {
    const body = await fs.readFile(file, { signal });
    const res = await this.send(this.url(sha256), {
      method: 'PUT',
      body,
      headers: { 'X-Amz-Content-Sha256': sha256, 'Content-Type': 'application/octet-stream' },
      signal,
    });
    if (!res.ok) throw await this.failed(res, 'storing an original');
    await res.body?.cancel();
  }

  async get(sha256: string, dest: string, signal?: AbortSignal): Promise<boolean> {
    const res = await this.send(this.url(sha256), { signal });
    if (res.status === 404) {
      await res.body?.cancel();
      return false;
    }
    if (!res.ok) throw await this.failed(res, 'fetching an original');
    const bytes = Buffer.from(await res.arrayBuffer());
    // What comes back must be the original it is named by: a changed one is refused, not shown.
    if (createHash('sha256').update(bytes).digest('hex') !== sha256)
      throw CasefileError.withRemedy(
        'failed',
        `A file of this case on the firm’s object storage (${this.store.endpoint}) is not the file that was added: it was changed there, so it is not shown.`,
        {
          app: 'Ask the firm’s administrator to restore the case’s files from a backup, or add the file again.',
          cli: 'Restore the bucket’s copy from a backup, or add the file to the case again.',
        },
      );
    await fs.mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, dest);
    return true;
  }

  async removeAll(signal?: AbortSignal): Promise<void> {
    const shas = [...(await this.list(signal))];
    for (let i = 0; i < shas.length; i += PARALLEL_DELETES) {
      await Promise.all(
        shas.slice(i, i + PARALLEL_DELETES).map(async (sha) => {
          const res = await this.send(this.url(sha), { method: 'DELETE', signal });
          if (!res.ok && res.status !== 404) throw await this.failed(res, 'removing an original');
          await res.body?.cancel();
        }),
      );
    }
  }
}
