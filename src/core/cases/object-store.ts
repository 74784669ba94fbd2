import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CasefileError } from '../../shared/errors';

/**
 * The firm's S3-compatible object storage, named by `<home>/object-store.json`. Without that file
 * every case keeps its index in its own folder (the default). With it, each case made from then on
 * keeps its index in the bucket, under `<prefix>/<case id>/`; the case records that place in its
 * case.json, so a case made before stays where it is. The secret never sits in the settings file:
 * it comes from the environment (config.ts) or from a credentials file the settings name.
 */
export const OBJECT_STORE_FILE = 'object-store.json';

const Settings = z
  .object({
    /** The server's address, e.g. `https://s3.firm.example` or `http://127.0.0.1:8333`. */
    endpoint: z.string().regex(/^https?:\/\/[^/\s]+\/?$/, 'must be http(s)://host[:port]'),
    region: z.string().min(1).default('us-east-1'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name'),
    /** Folder inside the bucket that holds the cases. */
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'must be folder names joined by /')
      .default('casefile'),
    /** Path-style addresses (`endpoint/bucket/key`), which most firm servers need; false for virtual-hosted. */
    pathStyle: z.boolean().default(true),
    /** A file holding `aws_access_key_id` and `aws_secret_access_key` (AWS credentials file format). */
    credentialsFile: z.string().min(1).optional(),
  })
  .strict();

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface ObjectStore extends S3Credentials {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathStyle: boolean;
}

/** Where a case's LanceDB database is: a local folder, or an `s3://` address and the options to reach it. */
export interface IndexLocation {
  uri: string;
  storageOptions?: Record<string, string>;
}

/** Where a case recorded its index (case.json `storage`): the bucket and the case's folder in it. */
export const CaseStorage = z.object({ kind: z.literal('s3'), bucket: z.string(), prefix: z.string() });
export type CaseStorage = z.infer<typeof CaseStorage>;

/** How a case's store reaches originals kept elsewhere than its folder (the firm's bucket). */
export interface RemoteOriginals {
  /** The sha256 of every original there. */
  list(signal?: AbortSignal): Promise<Set<string>>;
  /** Put the original at `file` (whose content hashes to `sha256`) there. */
  put(sha256: string, file: string, signal?: AbortSignal): Promise<void>;
  /** Fetch an original to `dest` (written whole or not at all); false when it is not there. */
  get(sha256: string, dest: string, signal?: AbortSignal): Promise<boolean>;
  /** Remove every original of the case. */
  removeAll(signal?: AbortSignal): Promise<void>;
}

/** The `[default]` (or only) profile's keys of an AWS-style credentials file. */
export function parseCredentials(text: string): S3Credentials | null {
  let section = '';
  const found: Record<string, Record<string, string>> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (head) section = head[1]!;
    else {
      const kv = /^([A-Za-z_]+)\s*=\s*(.*)$/.exec(line);
      if (kv) (found[section] ??= {})[kv[1]!.toLowerCase()] = kv[2]!.trim();
    }
  }
  const profile = found.default ?? found[''] ?? Object.values(found)[0];
  const accessKeyId = profile?.aws_access_key_id;
  const secretAccessKey = profile?.aws_secret_access_key;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null;
}

function invalid(file: string, reason: string): CasefileError {
  return CasefileError.withRemedy('invalid_input', `The object storage settings in ${file} ${reason}.`, {
    app: 'Ask the firm’s administrator to correct the object storage settings.',
    cli: `Correct ${file} (see docs/firm-server.md, “Object storage”), or remove it to keep cases on this computer.`,
  });
}

/**
 * The home's object storage, or null when it has no `object-store.json`. Refuses settings it cannot
 * use (a wrong field, no credentials) with the reason, rather than keep new cases local unnoticed.
 */
export async function readObjectStore(home: string, fromEnv?: S3Credentials): Promise<ObjectStore | null> {
  const file = path.join(home, OBJECT_STORE_FILE);
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw invalid(file, `cannot be read (${err.message})`);
  });
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalid(file, `are not valid JSON (${(err as Error).message})`);
  }
  const parsed = Settings.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(file, `are not valid: “${issue.path.join('.') || 'settings'}” ${issue.message}`);
  }
  const { credentialsFile, ...settings } = parsed.data;
  let credentials = fromEnv ?? null;
  if (!credentials && credentialsFile) {
    const where = path.resolve(home, credentialsFile);
    const content = await fs.readFile(where, 'utf8').catch((err: Error) => {
      throw invalid(file, `name a credentials file that cannot be read (${err.message})`);
    });
    credentials = parseCredentials(content);
    if (!credentials) throw invalid(file, `name ${where}, which holds no aws_access_key_id and aws_secret_access_key`);
  }
  if (!credentials)
    throw invalid(
      file,
      'give no credentials: set CASEFILE_S3_ACCESS_KEY_ID and CASEFILE_S3_SECRET_ACCESS_KEY, or name a credentialsFile',
    );
  return { ...settings, endpoint: settings.endpoint.replace(/\/$/, ''), ...credentials };
}

/** Where a case made now keeps its index: in the bucket under the store's prefix, or (no store) its folder. */
export function newCaseStorage(store: ObjectStore | null, caseId: string): CaseStorage | undefined {
  return store ? { kind: 's3', bucket: store.bucket, prefix: `${store.prefix}/${caseId}` } : undefined;
}

/** LanceDB's object-store options for this store (the names its S3 client reads). */
export function lanceStorageOptions(store: ObjectStore): Record<string, string> {
  return {
    aws_endpoint: store.endpoint,
    aws_region: store.region,
    aws_access_key_id: store.accessKeyId,
    aws_secret_access_key: store.secretAccessKey,
    aws_virtual_hosted_style_request: String(!store.pathStyle),
    allow_http: String(store.endpoint.startsWith('http:')),
  };
}

/** The place of a case's index: its folder's `lancedb`, or the bucket the case recorded. */
export function caseIndexLocation(
  caseDir: string,
  storage: CaseStorage | undefined,
  store: ObjectStore | null,
): IndexLocation {
  if (!storage) return { uri: path.join(caseDir, 'lancedb') };
  const reach = storeFor(storage, store);
  return { uri: `s3://${storage.bucket}/${storage.prefix}/lancedb`, storageOptions: lanceStorageOptions(reach) };
}

/** The settings that reach a bucket case's storage; a bucket case on a computer without them says so. */
export function storeFor(storage: CaseStorage, store: ObjectStore | null): ObjectStore {
  if (store) return store;
  throw CasefileError.withRemedy(
    'unavailable',
    `This case’s index is on the firm’s object storage (bucket ${storage.bucket}), and this computer has no object storage settings.`,
    {
      app: 'Ask the firm’s administrator to set up object storage on this computer.',
      cli: `Add ${OBJECT_STORE_FILE} to the data folder (see docs/firm-server.md, “Object storage”).`,
    },
  );
}
