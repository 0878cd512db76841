/**
 * What the drive I/O workers (io-pool.ts) run: plain JavaScript evaluated in a worker thread, and the shapes of
 * its jobs and answers. Each job is a short run of synchronous system calls answered with one message (buffers
 * transferred, not copied): the listing's directory reads and metadata reads.
 */

/** Per-child status codes of a {@link ChildrenJob} answer. */
export const CHILD_ABSENT = 0;
export const CHILD_DIR_ONLY = 1;
export const CHILD_META = 2;
export const CHILD_ERROR = 3;

/** Reads of the children `names` (on-disk directory names) of `dir`. */
export interface ChildrenJob {
  op: 'children';
  dir: string;
  names: string[];
  withMeta: boolean;
}

/** A scan (stamp, then names) of `dir`, skipped when `knownStamp` still matches. */
export interface ScanJob {
  op: 'scan';
  dir: string;
  knownStamp: string | null;
  /** Changes younger than this make the stamp unusable (see Drive.scanDir). */
  settleMs: number;
}

/** A whole-file read of `path` (an object's metadata file): answered with its bytes. */
export interface ReadJob {
  op: 'read';
  path: string;
  /**
   * When the file is absent, the drive's state is checked on the spot (as LocalDrive's error mapping does, one
   * round trip less): the error code is then ENOENT only when `format` exists, else DRIVE_UNFORMATTED when `root`
   * is a directory, else DRIVE_MISSING.
   */
  guard?: { format: string; root: string };
}

/** Several {@link ReadJob}s in one message (io-pool.ts batches the reads asked for in one turn of the event loop). */
export interface ReadsJob {
  op: 'reads';
  reads: ReadJob[];
}

/** Answer of a {@link ReadsJob}: per read, its bytes, or null with the error code (and errno) it failed with. */
export interface ReadsAnswer {
  data: (Uint8Array | null)[];
  errors: (string | null)[];
  errnos: (number | null)[];
}

/**
 * Inline commits of one drive (LocalDrive, with the commit log: commit-log.ts): per item, `dir` created (mkdir -p),
 * `data` written to `tmp` and renamed over `dst`, with no sync (the log's record makes the commit durable).
 */
export interface CommitsJob {
  op: 'commits';
  items: CommitItem[];
}

export interface CommitItem {
  /** The bucket's directory: a commit must not create it (the bucket was deleted: COMMIT_NO_VOLUME). */
  volDir: string;
  dir: string;
  tmp: string;
  dst: string;
  data: Uint8Array;
  /** Read `dst` before it is replaced, for CommitsAnswer.previous (RenameDataOptions.returnPrevious). */
  previous?: boolean;
}

/** Per item of a {@link CommitsJob}: COMMIT_CREATED (the key's directory is new), COMMIT_EXISTED, COMMIT_NO_VOLUME, or an error code. */
export interface CommitsAnswer {
  results: string[];
  errnos: (number | null)[];
  /** Per item asking for it: the metadata file the commit replaced (null: there was none). */
  previous: (Uint8Array | null)[];
}

export const COMMIT_CREATED = 'CREATED';
export const COMMIT_EXISTED = 'EXISTED';
export const COMMIT_NO_VOLUME = 'NO_VOLUME';

/** Error codes of a {@link ReadJob} whose file and drive format are absent. */
export const DRIVE_UNFORMATTED = 'DRIVE_UNFORMATTED';
export const DRIVE_MISSING = 'DRIVE_MISSING';

/** Every job a drive I/O worker runs. */
export type IoJob = ScanJob | ChildrenJob | ReadJob | ReadsJob | CommitsJob;

/** Answer of a {@link ChildrenJob}: status per child, metadata bytes concatenated. */
export interface ChildrenAnswer {
  /** `dir` itself (or a parent) does not exist / is not a directory. */
  missing: boolean;
  status: Uint8Array;
  children: Uint8Array;
  /** Metadata of child i is `data[offsets[i], offsets[i+1])`. */
  offsets: Int32Array;
  data: Uint8Array;
  /** Error code per child with status CHILD_ERROR. */
  errors: Record<number, string>;
}

/** Answer of a {@link ScanJob}. */
export interface ScanAnswer {
  /** ENOENT/ENOTDIR code when `dir` is absent, or another error code. */
  error?: string;
  /** Raw on-disk entry names (null when unchanged). */
  entries: string[] | null;
  /** Original segments of hashed entries, by entry name; absent when unreadable. */
  hashed: Record<string, string>;
  stamp: string | null;
}

// Plain JavaScript run with `eval` (works the same from sources under tsx and from the build).
export const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
// Errors here travel back as a code and an errno only: no stacks. Every PUT of a new key reads its metadata on each
// drive and meets ENOENT; V8's stack capture for those errors was ~1 % of the server's CPU (perf, issue 9).
Error.stackTraceLimit = 0;
const fs = require('node:fs');
let scratch = Buffer.allocUnsafe(64 * 1024);
function readWhole(path) {
  const fd = fs.openSync(path, 'r');
  try {
    let len = 0;
    for (;;) {
      if (len === scratch.length) { const b = Buffer.allocUnsafe(scratch.length * 2); scratch.copy(b); scratch = b; }
      const want = scratch.length - len;
      const n = fs.readSync(fd, scratch, len, want, null);
      len += n;
      // A short read of a regular file is its end (metadata files are replaced by rename, never changed in
      // place): no second read just to see 0.
      if (n < want) return len;
    }
  } finally { fs.closeSync(fd); }
}
function children(job) {
  const n = job.names.length;
  const status = new Uint8Array(n), kids = new Uint8Array(n), errors = {};
  // Records are appended once, straight from the read buffer, to the answer's data (transferred, not copied).
  let data = new Uint8Array(64 * 1024);
  let at = 0;
  const offsets = new Int32Array(n + 1);
  let missing = false;
  try { if (!fs.statSync(job.dir).isDirectory()) missing = true; } catch (e) { missing = true; if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') throw e; }
  for (let i = 0; i < n && !missing; i++) {
    offsets[i] = at;
    const p = job.dir + '/' + job.names[i];
    try {
      let st;
      try { st = fs.statSync(p, { throwIfNoEntry: false }); } catch (e) { if (e.code === 'ENOTDIR') continue; throw e; }
      if (st === undefined || !st.isDirectory()) continue;
      status[i] = ${CHILD_DIR_ONLY};
      // A directory's link count is 2 + its subdirectories: 2 means no deeper segment (and no data directory).
      if (st.nlink !== 2) kids[i] = fs.readdirSync(p).some((x) => x[0] === '+' || x[0] === '#') ? 1 : 0;
      if (!job.withMeta) continue;
      let len;
      try { len = readWhole(p + '/xl.meta'); } catch (e) { if (e.code === 'ENOENT' || e.code === 'ENOTDIR') continue; throw e; }
      if (at + len > data.length) {
        const grown = new Uint8Array(Math.max(2 * data.length, at + len));
        grown.set(data.subarray(0, at));
        data = grown;
      }
      data.set(scratch.subarray(0, len), at);
      at += len;
      status[i] = ${CHILD_META};
    } catch (e) {
      status[i] = ${CHILD_ERROR};
      kids[i] = 0;
      errors[i] = String(e.code || e.message);
    }
  }
  for (let i = missing ? 0 : n; i <= n; i++) offsets[i] = at;
  return { missing, status, children: kids, offsets, data: data.subarray(0, at), errors };
}
function stampOf(st) {
  return st.ino + ':' + st.mtimeNs + ':' + st.ctimeNs + ':' + st.nlink;
}
function scan(job) {
  let st;
  try { st = fs.statSync(job.dir, { bigint: true }); } catch (e) { return { error: e.code || e.message, entries: null, hashed: {}, stamp: null }; }
  if (!st.isDirectory()) return { error: 'ENOTDIR', entries: null, hashed: {}, stamp: null };
  const changed = Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1000000n);
  const settled = Date.now() - changed >= job.settleMs;
  const stamp = stampOf(st);
  if (settled && job.knownStamp === stamp) return { entries: null, hashed: {}, stamp };
  let entries;
  try { entries = fs.readdirSync(job.dir); } catch (e) { return { error: e.code || e.message, entries: null, hashed: {}, stamp: null }; }
  const hashed = {};
  let complete = true;
  for (const x of entries) {
    if (x[0] !== '#') continue;
    try { hashed[x] = fs.readFileSync(job.dir + '/' + x + '/.name', 'utf8'); } catch { complete = false; }
  }
  return { entries, hashed, stamp: settled && complete ? stamp : null };
}
function driveState(guard) {
  if (fs.existsSync(guard.format)) return null;
  try { return fs.statSync(guard.root).isDirectory() ? '${DRIVE_UNFORMATTED}' : '${DRIVE_MISSING}'; } catch { return '${DRIVE_MISSING}'; }
}
function read(job) {
  let len;
  try { len = readWhole(job.path); } catch (e) {
    const state = job.guard && (e.code === 'ENOENT' || e.code === 'ENOTDIR') ? driveState(job.guard) : null;
    if (state !== null) throw Object.assign(new Error(state), { code: state });
    throw e;
  }
  const data = new Uint8Array(len);
  data.set(scratch.subarray(0, len));
  return data;
}
function reads(job) {
  const data = [], errors = [], errnos = [];
  for (const one of job.reads) {
    try { data.push(read(one)); errors.push(null); errnos.push(null); } catch (e) { data.push(null); errors.push(String(e.code || e.message)); errnos.push(e.errno ?? null); }
  }
  return { data, errors, errnos };
}
function commit(it, previous, i) {
  const created = fs.mkdirSync(it.dir, { recursive: true });
  if (created !== undefined && created.length <= it.volDir.length) {
    fs.rmSync(created, { recursive: true, force: true });
    return '${COMMIT_NO_VOLUME}';
  }
  // A new key's directory holds no record: nothing to read.
  if (it.previous && created === undefined) {
    try {
      const len = readWhole(it.dst);
      // Its own memory (transferred with the answer), not a view of the scratch buffer.
      previous[i] = new Uint8Array(len);
      previous[i].set(scratch.subarray(0, len));
    } catch (e) { if (e.code !== 'ENOENT') throw e; }
  }
  fs.writeFileSync(it.tmp, it.data);
  try { fs.renameSync(it.tmp, it.dst); } catch (e) { try { fs.unlinkSync(it.tmp); } catch {} throw e; }
  return created === undefined ? '${COMMIT_EXISTED}' : '${COMMIT_CREATED}';
}
function commits(job) {
  const results = [], errnos = [], previous = job.items.map(() => null);
  job.items.forEach((it, i) => {
    try { results.push(commit(it, previous, i)); errnos.push(null); } catch (e) { results.push(String(e.code || e.message)); errnos.push(e.errno ?? null); }
  });
  return { results, errnos, previous };
}
parentPort.on('message', (m) => {
  let value, error, errno, transfer = [];
  try {
    switch (m.job.op) {
      case 'scan': value = scan(m.job); break;
      case 'children':
        value = children(m.job);
        transfer = [value.status.buffer, value.children.buffer, value.offsets.buffer, value.data.buffer];
        break;
      case 'read': value = read(m.job); transfer = [value.buffer]; break;
      case 'commits': value = commits(m.job); transfer = value.previous.filter((d) => d !== null).map((d) => d.buffer); break;
      case 'reads': value = reads(m.job); transfer = value.data.filter((d) => d !== null).map((d) => d.buffer); break;
      default: error = 'EINVAL';
    }
  } catch (e) { error = String(e.code || e.message); errno = e.errno; value = undefined; transfer = []; }
  parentPort.postMessage({ rid: m.rid, value, error, errno }, transfer);
});
`;

