import path from 'node:path';
import './lancedb-env';
import * as lancedb from '@lancedb/lancedb';
import { Bool, Field, FixedSizeList, Float32, Int32, type RecordBatch, Schema, Utf8 } from 'apache-arrow';
import type { IndexLocation } from '../cases/index';
import type { ChunkRecord, DocType } from '../domain/index';
import { and, sqlInt, sqlString, sqlStringList } from './sql';

export const CHUNKS_TABLE = 'chunks';
/** Rows above which a vector (ANN) index is built; below it an exact scan is as fast (see bench/index.ts). */
export const ANN_MIN_ROWS = 50_000;
/**
 * Candidates per result the ANN index hands over to be re-ranked by their full vectors. Without
 * it, 10–35 of 834 passages were not among the 5 nearest to their own vector (16-dimension test
 * vectors, three index builds).
 */
const REFINE_FACTOR = 10;
/** Rows written per commit when a case's index is copied to another place. */
const COPY_ROWS = 10_000;

export interface ScoredChunk {
  chunk: ChunkRecord;
  /** BM25 for keyword search; cosine similarity for vector search. */
  score: number;
}

const CHUNK_COLUMNS = [
  'chunk_id',
  'file_id',
  'file_name',
  'version',
  'is_latest',
  'chunk_index',
  'start',
  'end',
  'page_start',
  'page_end',
  'text',
  'context',
  'hash',
  'doc_type',
  'doc_date',
] as const;
/** A table made before chunk contexts has every column but `context` (upgraded by `ensureContextColumn`). */
const PRE_CONTEXT_COLUMNS = CHUNK_COLUMNS.filter((c) => c !== 'context');

/** Arrow schema of the `chunks` table; `dimension` adds the fixed-size float32 `vector` column. */
export function chunkSchema(dimension: number | null): Schema {
  const fields: Field[] = [
    new Field('chunk_id', new Utf8(), false),
    new Field('file_id', new Utf8(), false),
    new Field('file_name', new Utf8(), false),
    new Field('version', new Int32(), false),
    new Field('is_latest', new Bool(), false),
    new Field('chunk_index', new Int32(), false),
    new Field('start', new Int32(), false),
    new Field('end', new Int32(), false),
    new Field('page_start', new Int32(), false),
    new Field('page_end', new Int32(), false),
    new Field('text', new Utf8(), false),
    new Field('context', new Utf8(), false),
    new Field('hash', new Utf8(), false),
    new Field('doc_type', new Utf8(), false),
    new Field('doc_date', new Utf8(), false),
  ];
  if (dimension !== null) {
    fields.push(new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false));
    // False while a row's vector is still to come (written keyword-searchable first; see ChunkStore.pending).
    fields.push(new Field('embedded', new Bool(), false));
  }
  return new Schema(fields);
}

/** The FTS index (on `text`, and on `context`): BM25, English stemming, stop words removed, case and accents folded. */
export function ftsIndex(): lancedb.Index {
  return lancedb.Index.fts({
    withPosition: false,
    baseTokenizer: 'simple',
    language: 'English',
    stem: true,
    removeStopWords: true,
    lowercase: true,
    asciiFolding: true,
  });
}

/** What is embedded for a chunk: its context (title › section path) on a line before its text. */
export function embeddingText(chunk: Pick<ChunkRecord, 'text' | 'context'>): string {
  return chunk.context ? `${chunk.context}\n${chunk.text}` : chunk.text;
}

function toChunk(row: Record<string, unknown>): ChunkRecord {
  return {
    chunk_id: String(row.chunk_id),
    file_id: String(row.file_id),
    file_name: String(row.file_name),
    version: Number(row.version),
    is_latest: Boolean(row.is_latest),
    chunk_index: Number(row.chunk_index),
    start: Number(row.start),
    end: Number(row.end),
    page_start: Number(row.page_start),
    page_end: Number(row.page_end),
    text: String(row.text),
    context: String(row.context ?? ''),
    hash: String(row.hash),
    doc_type: String(row.doc_type) as DocType,
    doc_date: String(row.doc_date ?? ''),
  };
}

/** The rows of these files. */
function fileIn(files: ReadonlySet<string>): string {
  return `file_id IN ${sqlStringList(files)}`;
}

/** A row of the table: a vector, or (`pending`) a zero vector of that size, its `embedded` flag false until the real one comes. */
function toRow(
  chunk: ChunkRecord,
  vector: Float32Array | number[] | undefined,
  pending?: number,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of CHUNK_COLUMNS) row[c] = chunk[c];
  row.doc_date = chunk.doc_date ?? '';
  if (vector) {
    row.vector = Array.from(vector);
    row.embedded = true;
  } else if (pending !== undefined) {
    row.vector = new Array<number>(pending).fill(0);
    row.embedded = false;
  }
  return row;
}

/** A case folder (its index in `<caseDir>/lancedb`) or the place the case's index is. */
function locate(where: string | IndexLocation): IndexLocation {
  return typeof where === 'string' ? { uri: path.join(where, 'lancedb') } : where;
}

function connect(location: IndexLocation): Promise<lancedb.Connection> {
  return lancedb.connect(location.uri, {
    readConsistencyInterval: 0,
    ...(location.storageOptions ? { storageOptions: location.storageOptions } : {}),
  });
}

/**
 * One case's LanceDB database (`<caseDir>/lancedb`, or an `s3://` address on the firm's object
 * storage; table `chunks`). Nothing here can reach another case: the store is opened on one
 * database and every query runs on that database's table. Readers use strong read consistency so
 * chunks written by an ingest worker are seen at once.
 */
export class ChunkStore {
  /** The database's folder or `s3://` address. */
  readonly dir: string;
  private tableHandle: lancedb.Table | null = null;
  private contextColumn: boolean | undefined;
  private embeddedColumn: boolean | undefined;
  private closed = false;

  private constructor(
    private readonly db: lancedb.Connection,
    dir: string,
  ) {
    this.dir = dir;
  }

  static async open(where: string | IndexLocation): Promise<ChunkStore> {
    const location = locate(where);
    return new ChunkStore(await connect(location), location.uri);
  }

  /** Remove every table of a database on object storage (a local one goes with its case folder). */
  static async drop(location: IndexLocation): Promise<void> {
    const db = await connect(location);
    try {
      await db.dropAllTables();
    } finally {
      db.close();
    }
  }

  /**
   * Copy a case's index to another place (its folder and the firm's object storage, either way):
   * the table as it is now, streamed in batches with its schema, and its indexes built there as
   * an optimize would. The target must hold no table yet. Returns the rows copied.
   */
  static async copy(from: string | IndexLocation, to: string | IndexLocation): Promise<number> {
    const source = await ChunkStore.open(from);
    const target = await ChunkStore.open(to);
    try {
      const table = await source.table();
      if (!table) return 0;
      const copy = await target.db.createEmptyTable(CHUNKS_TABLE, await table.schema());
      // Each add is a commit (a round trip to the bucket): the batches go in groups of COPY_ROWS.
      // LanceDB's batches are of its own (CommonJS) Arrow: handed back as a table-like, not wrapped in ours.
      let rows = 0;
      let group: RecordBatch[] = [];
      let groupRows = 0;
      const flush = async () => {
        if (group.length) await copy.add({ schema: group[0]!.schema, batches: group });
        group = [];
        groupRows = 0;
      };
      for await (const batch of table.query()) {
        if (!batch.numRows) continue;
        group.push(batch);
        groupRows += batch.numRows;
        rows += batch.numRows;
        if (groupRows >= COPY_ROWS) await flush();
      }
      await flush();
      target.tableHandle = copy;
      await target.optimize({ keepVersionsMs: 0 });
      return rows;
    } finally {
      source.close();
      target.close();
    }
  }

  /** Whether the place holds no table at all (nothing was ever indexed there, or it was dropped). */
  static async isEmpty(location: string | IndexLocation): Promise<boolean> {
    const db = await connect(locate(location));
    try {
      return (await db.tableNames()).length === 0;
    } finally {
      db.close();
    }
  }

  /** The `chunks` table, or null while nothing has been indexed in this case. */
  async table(): Promise<lancedb.Table | null> {
    if (this.closed) throw new Error('ChunkStore is closed');
    if (this.tableHandle) return this.tableHandle;
    const names = await this.db.tableNames();
    if (!names.includes(CHUNKS_TABLE)) return null;
    try {
      this.tableHandle = await this.db.openTable(CHUNKS_TABLE);
    } catch (err) {
      // Listed while its first write is still making it (no version committed yet): nothing indexed yet.
      if (/was not found/i.test((err as Error).message)) return null;
      throw err;
    }
    this.contextColumn = undefined;
    this.embeddedColumn = undefined;
    return this.tableHandle;
  }

  /** Whether the table has the `context` column (a table made before contexts has not, until a write adds it). */
  async hasContext(): Promise<boolean> {
    const table = await this.table();
    if (!table) return false;
    this.contextColumn ??= (await table.schema()).fields.some((f) => f.name === 'context');
    return this.contextColumn;
  }

  private async columns(): Promise<readonly string[]> {
    return (await this.hasContext()) ? CHUNK_COLUMNS : PRE_CONTEXT_COLUMNS;
  }

  /** Add the `context` column ('' in every row) to a table made before contexts; rows get contexts when their version is indexed again. */
  async ensureContextColumn(): Promise<void> {
    const table = await this.table();
    if (!table || (await this.hasContext())) return;
    await table.addColumns([{ name: 'context', valueSql: "''" }]);
    this.contextColumn = true;
  }

  /** Dimension of the stored vectors, or null when the table has none (keyword-only case or empty). */
  async vectorDimension(): Promise<number | null> {
    const table = await this.table();
    if (!table) return null;
    const schema = await table.schema();
    const field = schema.fields.find((f) => f.name === 'vector');
    if (!field) return null;
    const type = field.type as { listSize?: number };
    return typeof type.listSize === 'number' ? type.listSize : null;
  }

  async count(where?: string): Promise<number> {
    const table = await this.table();
    return table ? table.countRows(where) : 0;
  }

  /**
   * Replace all chunks of one (file_id, version) by `chunks`, with `vectors` (same order) when the
   * case has embeddings, or `{ pending: dimension }`: keyword-searchable now, vectors to come
   * (`setVectors`). Idempotent: indexing the same version twice leaves one copy. `added`: the
   * caller knows the table holds no row of the version, and no delete looks for them.
   */
  async replaceVersion(
    fileId: string,
    version: number,
    chunks: ChunkRecord[],
    vectors: (Float32Array | number[])[] | { pending: number } | null,
    added = false,
  ): Promise<void> {
    const pending = vectors && !Array.isArray(vectors) ? vectors.pending : undefined;
    const list = Array.isArray(vectors) ? vectors : null;
    const dimension = pending ?? (list && list.length ? list[0]!.length : list ? await this.vectorDimension() : null);
    const withVectors = vectors !== null;
    let table = await this.table();
    const rows = chunks.map((c, i) => toRow(c, list ? list[i] : undefined, pending));
    if (!table) {
      table = await this.db.createEmptyTable(CHUNKS_TABLE, chunkSchema(dimension), { existOk: true });
      this.tableHandle = table;
    } else {
      await this.ensureContextColumn();
      const have = await this.vectorDimension();
      if (have !== (withVectors ? dimension : null) && rows.length > 0) {
        throw new Error(
          have === null
            ? 'This case was indexed without vectors; re-embed it before adding vectors.'
            : `This case holds ${have}-dimensional vectors; chunks arrived ${withVectors ? `with ${dimension}` : 'without vectors'}.`,
        );
      }
      if (withVectors) await this.ensureEmbeddedColumn();
    }
    if (!added) await table.delete(and(`file_id = ${sqlString(fileId)}`, `version = ${sqlInt(version)}`)!);
    if (rows.length) await table.add(rows);
    await this.ensureIndexes();
  }

  /** Whether the table has the `embedded` column (a table with vectors made before it has not, until a write adds it: all its rows are embedded). */
  async hasEmbeddedColumn(): Promise<boolean> {
    const table = await this.table();
    if (!table) return false;
    this.embeddedColumn ??= (await table.schema()).fields.some((f) => f.name === 'embedded');
    return this.embeddedColumn;
  }

  private async ensureEmbeddedColumn(): Promise<void> {
    const table = await this.table();
    if (!table || (await this.hasEmbeddedColumn()) || (await this.vectorDimension()) === null) return;
    await table.addColumns([{ name: 'embedded', valueSql: 'true' }]);
    this.embeddedColumn = true;
  }

  /**
   * Up to `limit` rows still without their vector, in the order they were written; none of
   * `besides` (rows being embedded now); only those of `files` when given.
   */
  async pending(limit: number, besides: ChunkRecord[] = [], files?: ReadonlySet<string>): Promise<ChunkRecord[]> {
    if (!(await this.hasEmbeddedColumn())) return [];
    if (files && files.size === 0) return [];
    return this.rows(
      and(
        'embedded = false',
        besides.length > 0 && `chunk_id NOT IN (${besides.map((c) => sqlString(c.chunk_id)).join(', ')})`,
        files && fileIn(files),
      ),
      limit,
    );
  }

  /** Passages (latest versions) with a vector, of all (of `files` only, when given); null for a case without vectors. */
  async embeddedShare(files?: ReadonlySet<string>): Promise<{ embedded: number; total: number } | null> {
    if (!(await this.hasEmbeddedColumn())) return null;
    if (files && files.size === 0) return { embedded: 0, total: 0 };
    const latest = and('is_latest = true', files && fileIn(files))!;
    return { embedded: await this.count(`${latest} AND embedded = true`), total: await this.count(latest) };
  }

  /**
   * Keep every row and its text, but none of its vector: each waits for one of `dimension` from
   * another model (see `pending`). One atomic overwrite, so searches see the old vectors or none.
   */
  async resetVectors(dimension: number): Promise<void> {
    const chunks = await this.rows(undefined);
    const table = await this.db.createEmptyTable(CHUNKS_TABLE, chunkSchema(dimension), { mode: 'overwrite' });
    if (chunks.length) await table.add(chunks.map((c) => toRow(c, undefined, dimension)));
    this.tableHandle?.close();
    this.tableHandle = table;
    this.contextColumn = true;
    this.embeddedColumn = true;
    await this.ensureIndexes();
  }

  /**
   * Per file, the latest passages with a vector and all of them, for the files whose latest version
   * still waits for vectors (none listed when every passage has one); null for a case without vectors.
   * One scan of the pending rows, then one of those files' rows (file_id only): cheap for any case.
   */
  async embeddedByFile(): Promise<Map<string, { embedded: number; total: number }> | null> {
    const table = await this.table();
    if (!table || !(await this.hasEmbeddedColumn())) return null;
    const waiting = (await table
      .query()
      .where('is_latest = true AND embedded = false')
      .select(['file_id'])
      .toArray()) as { file_id: string }[];
    const out = new Map<string, { embedded: number; total: number }>();
    if (!waiting.length) return out;
    const pending = new Map<string, number>();
    for (const r of waiting) pending.set(r.file_id, (pending.get(r.file_id) ?? 0) + 1);
    const where = and('is_latest = true', `file_id IN (${[...pending.keys()].map(sqlString).join(', ')})`)!;
    const rows = (await table.query().where(where).select(['file_id']).toArray()) as { file_id: string }[];
    const totals = new Map<string, number>();
    for (const r of rows) totals.set(r.file_id, (totals.get(r.file_id) ?? 0) + 1);
    for (const [id, left] of pending) {
      const total = totals.get(id) ?? left;
      out.set(id, { embedded: Math.max(0, total - left), total });
    }
    return out;
  }

  /**
   * The vectors of pending rows (same order as `chunks`, as `pending` returned them). A row whose
   * version was replaced or removed meanwhile is not matched, so nothing comes back to life.
   */
  async setVectors(chunks: ChunkRecord[], vectors: (Float32Array | number[])[]): Promise<void> {
    const table = await this.table();
    if (!table || !chunks.length) return;
    await table
      .mergeInsert('chunk_id')
      .whenMatchedUpdateAll({ where: 'target.embedded = false' })
      .execute(chunks.map((c, i) => toRow(c, vectors[i])));
  }

  /** Bulk append (bench and re-embedding of large cases): no per-version delete. */
  async append(chunks: ChunkRecord[], vectors: (Float32Array | number[])[] | null): Promise<void> {
    const rows = chunks.map((c, i) => toRow(c, vectors ? vectors[i] : undefined));
    let table = await this.table();
    if (!table) {
      table = await this.db.createEmptyTable(
        CHUNKS_TABLE,
        chunkSchema(vectors && vectors.length ? vectors[0]!.length : null),
        { existOk: true },
      );
      this.tableHandle = table;
    } else {
      await this.ensureContextColumn();
      if (vectors) await this.ensureEmbeddedColumn();
    }
    if (rows.length) await table.add(rows);
  }

  async setLatest(fileId: string, latestVersion: number | null): Promise<void> {
    const table = await this.table();
    if (!table) return;
    const file = `file_id = ${sqlString(fileId)}`;
    if (latestVersion === null) {
      await table.update({ values: { is_latest: false }, where: and(file, 'is_latest = true')! });
      return;
    }
    // One write: every update commits a table version, even one that changes no row.
    const latest = `version = ${sqlInt(latestVersion)}`;
    await table.update({
      valuesSql: { is_latest: latest },
      where: and(file, `(is_latest = true AND NOT (${latest}) OR is_latest = false AND ${latest})`)!,
    });
  }

  async removeFile(fileId: string, versions?: number[]): Promise<void> {
    const table = await this.table();
    if (!table) return;
    const file = `file_id = ${sqlString(fileId)}`;
    if (versions && versions.length === 0) return;
    const where = versions ? and(file, `version IN (${versions.map(sqlInt).join(', ')})`)! : file;
    await table.delete(where);
  }

  /**
   * Create the indexes the first time there are rows to index: BM25 on `text` and `context`, and
   * scalar indexes on the columns every search filters by (`is_latest`, `embedded`, `file_id`),
   * which otherwise are read for every row of the case on each query.
   */
  async ensureIndexes(): Promise<void> {
    const table = await this.table();
    if (!table) return;
    type Wanted = [column: string, config: () => lancedb.Index];
    const fts = ((await this.hasContext()) ? ['text', 'context'] : ['text']).map((c): Wanted => [c, ftsIndex]);
    const flags = ((await this.hasEmbeddedColumn()) ? ['is_latest', 'embedded'] : ['is_latest']).map(
      (c): Wanted => [c, () => lancedb.Index.bitmap()],
    );
    const indices = await table.listIndices();
    const missing = [...fts, ...flags, ['file_id', () => lancedb.Index.btree()] as Wanted].filter(
      ([column]) => !indices.some((i) => i.columns.includes(column)),
    );
    if (!missing.length || (await table.countRows()) === 0) return;
    for (const [column, config] of missing) await table.createIndex(column, { config: config(), replace: true });
  }

  /**
   * Bring indexes up to date with new rows, compact small fragments left by many small ingests and
   * drop superseded versions. Run after each ingest batch.
   */
  async optimize(options: { keepVersionsMs?: number; annMinRows?: number } = {}): Promise<void> {
    const table = await this.table();
    if (!table) return;
    await this.ensureIndexes();
    // Old table versions go after a minute (a query running on one is long finished by then).
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - (options.keepVersionsMs ?? 60_000)) });
    const dim = await this.vectorDimension();
    if (dim !== null) {
      const indices = await table.listIndices();
      const rows = await table.countRows();
      // The index's partitions and codebooks are learnt from the vectors there are: never while
      // passages still wait for theirs (all zeros), as during an ingest's embedding stage. Counted
      // only for a case that would get its index now (optimize runs every 25 writes).
      const due = rows >= (options.annMinRows ?? ANN_MIN_ROWS) && !indices.some((i) => i.columns.includes('vector'));
      if (due && !((await this.hasEmbeddedColumn()) && (await this.count('embedded = false')) > 0)) {
        await table.createIndex('vector', {
          config: lancedb.Index.ivfPq({
            distanceType: 'cosine',
            numPartitions: Math.max(16, Math.round(Math.sqrt(rows))),
            numSubVectors: dim % 16 === 0 ? dim / 16 : undefined,
          }),
        });
      }
    }
  }

  /**
   * BM25 search (LanceDB's native full-text index) over `text`, and over `context` weighted by
   * `contextBoost` where the table has contexts: the score is the sum over both fields.
   */
  async keyword(
    query: string,
    where: string | undefined,
    limit: number,
    options: { contextBoost?: number } = {},
  ): Promise<ScoredChunk[]> {
    const table = await this.table();
    if (!table || !query.trim()) return [];
    const boost = options.contextBoost ?? 0;
    // Always a match query: the user's words are words, never query syntax ("quotes", AND, field:…).
    const search =
      boost > 0 && (await this.hasContext())
        ? new lancedb.MultiMatchQuery(query, ['text', 'context'], { boosts: [1, boost] })
        : new lancedb.MatchQuery(query, 'text');
    let q = table
      .query()
      .fullTextSearch(search, { columns: 'text' })
      .select([...(await this.columns()), '_score'])
      .limit(limit);
    if (where) q = q.where(where);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ chunk: toChunk(r), score: Number(r._score) }));
  }

  /**
   * In how many documents' latest text `term` occurs (BM25 over `text`), counted up to `cap` + 1:
   * enough to tell a party's name (one contract) from a word most documents use.
   */
  async documentFrequency(term: string, cap: number): Promise<number> {
    return Math.min(cap + 1, (await this.filesHolding(term, cap)).length);
  }

  /** The documents whose text holds `term` (every word of it, in one passage); null when more than `cap` do. */
  async documentsWith(term: string, cap: number): Promise<string[] | null> {
    const ids = await this.filesHolding(term, cap);
    return ids.length > cap ? null : ids;
  }

  /** Ids of the documents with a latest passage holding every word of `term`, enough of them to tell more than `cap`. */
  private async filesHolding(term: string, cap: number): Promise<string[]> {
    const table = await this.table();
    if (!table || !term.trim()) return [];
    const rows = (await table
      .query()
      // Several words: passages holding all of them (the index keeps no positions for a phrase).
      .fullTextSearch(new lancedb.MatchQuery(term, 'text', { operator: lancedb.Operator.And }))
      .where('is_latest = true')
      .select(['file_id'])
      .limit(Math.max(50, (cap + 1) * 20))
      .toArray()) as { file_id: string }[];
    return [...new Set(rows.map((r) => r.file_id))];
  }

  /** The share of the latest passages of `fileIds` that hold `term` (BM25 over `text`). */
  async shareOfPassages(term: string, fileIds: readonly string[]): Promise<number> {
    const table = await this.table();
    if (!table || !term.trim() || !fileIds.length) return 0;
    const where = and('is_latest = true', `file_id IN (${fileIds.map(sqlString).join(', ')})`)!;
    const total = await table.countRows(where);
    if (!total) return 0;
    const rows = await table
      .query()
      .fullTextSearch(new lancedb.MatchQuery(term, 'text'))
      .where(where)
      .select(['chunk_id'])
      .limit(total)
      .toArray();
    return rows.length / total;
  }

  /** Nearest chunks by cosine similarity to a normalised query vector. */
  async vector(
    query: Float32Array | number[],
    where: string | undefined,
    limit: number,
    options: { exact?: boolean } = {},
  ): Promise<ScoredChunk[]> {
    const table = await this.table();
    if (!table) return [];
    let q = table
      .query()
      .nearestTo(Array.from(query))
      .distanceType('cosine')
      .select([...(await this.columns()), '_distance'])
      .limit(limit);
    // Through a large case's IVF-PQ index, distances are between compressed vectors: take more
    // candidates than asked for and rank them by their true distance, which is also the score reported.
    if (options.exact) q = q.bypassVectorIndex();
    else q = q.refineFactor(REFINE_FACTOR);
    // Rows whose vector is still to come are left out (their zero vector has no direction).
    const w = (await this.hasEmbeddedColumn()) ? and(where, 'embedded = true') : where;
    if (w) q = q.where(w);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map((r) => ({ chunk: toChunk(r), score: 1 - Number(r._distance) }));
  }

  /** `<file_id>@<version>` of every version with rows that have no context (every version, in a table made before contexts). */
  async versionsWithoutContext(): Promise<Set<string>> {
    const table = await this.table();
    if (!table) return new Set();
    let q = table.query().select(['file_id', 'version']);
    if (await this.hasContext()) q = q.where("context = ''");
    const rows = (await q.toArray()) as { file_id: string; version: number }[];
    return new Set(rows.map((r) => `${r.file_id}@${Number(r.version)}`));
  }

  /** Plain filtered scan (no ranking), e.g. neighbours of a chunk or all chunks of a version. */
  async rows(where: string | undefined, limit?: number): Promise<ChunkRecord[]> {
    const table = await this.table();
    if (!table) return [];
    let q = table.query().select([...(await this.columns())]);
    if (where) q = q.where(where);
    if (limit !== undefined) q = q.limit(limit);
    const rows = (await q.toArray()) as Record<string, unknown>[];
    return rows.map(toChunk);
  }

  /** Rewrite the whole table with new vectors (model change or first model): one atomic overwrite. */
  async overwrite(chunks: ChunkRecord[], vectors: (Float32Array | number[])[] | null): Promise<void> {
    const dimension = vectors && vectors.length ? vectors[0]!.length : null;
    const rows = chunks.map((c, i) => toRow(c, vectors ? vectors[i] : undefined));
    const schema = chunkSchema(dimension);
    const table = await this.db.createEmptyTable(CHUNKS_TABLE, schema, { mode: 'overwrite' });
    if (rows.length) await table.add(rows);
    this.tableHandle?.close();
    this.tableHandle = table;
    this.contextColumn = true;
    this.embeddedColumn = dimension !== null;
    await this.ensureIndexes();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.tableHandle?.close();
    this.tableHandle = null;
    this.db.close();
  }
}

/** Filters as SQL, shared by every search. Only whitelisted columns, every value escaped. */
export interface ChunkFilter {
  file_name?: string;
  file_name_contains?: string;
  file_version?: number | 'latest' | 'all';
  doc_type?: string;
  date_from?: string;
  date_to?: string;
  file_id?: string;
  /** Only these files (a search focused on the documents a question names). */
  file_ids?: readonly string[];
  exclude_hashes?: Iterable<string>;
}

export function filterToWhere(f: ChunkFilter): string | undefined {
  const version = f.file_version ?? 'latest';
  const hashes = f.exclude_hashes ? [...f.exclude_hashes] : [];
  return and(
    f.file_id !== undefined && `file_id = ${sqlString(f.file_id)}`,
    f.file_ids !== undefined && (f.file_ids.length ? `file_id IN (${f.file_ids.map(sqlString).join(', ')})` : 'false'),
    f.file_name !== undefined && `file_name = ${sqlString(f.file_name)}`,
    f.file_name_contains !== undefined && `strpos(lower(file_name), lower(${sqlString(f.file_name_contains)})) > 0`,
    version === 'latest' ? 'is_latest = true' : version === 'all' ? undefined : `version = ${sqlInt(version)}`,
    f.doc_type !== undefined && `doc_type = ${sqlString(f.doc_type)}`,
    f.date_from !== undefined && `doc_date <> '' AND doc_date >= ${sqlString(f.date_from)}`,
    f.date_to !== undefined && `doc_date <> '' AND doc_date <= ${sqlString(f.date_to)}`,
    hashes.length > 0 && `hash NOT IN (${hashes.map(sqlString).join(', ')})`,
  );
}
