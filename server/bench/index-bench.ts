/**
 * `npm run bench:index [-- --dir DIR] [--writers N] [--seconds S] [--sync FULL|NORMAL] [--store KIND]`: what a
 * synced key index per drive would cost the 4 KiB PUT (issue 9, point 2), measured as the thirteenth session measured
 * LMDB and LevelDB (docs/performance.md): four SQLite databases (one per drive of a 4-drive set) in WAL mode, `synchronous=FULL`
 * (each commit fsyncs the log), each in its own worker thread; N writers each put a 2,433-byte record (a 2+2
 * stripe's inline record) under a new key into all four and wait for the four commits; the puts asked for in one turn
 * of the event loop share one transaction per database (group commit, as the commit log does). One JSON line: rounds
 * per second (a round is one writer's four synced puts) and the process's CPU per round (every thread: user +
 * kernel), then the same for point reads of the written keys from 16 readers, with the peak RSS. `--store files`
 * measures today's way in the same harness (a synced log append per batch, then a directory and a metadata file per
 * record, FILES_WORKER below), so the two compare like for like; run each on a fresh file system (`--dir` on a new
 * mount): on this machine's root ext4, files deleted minutes before slow every new one down. `--store runs` measures
 * the leanest index this project could write in JavaScript (index-runs-worker.ts: the records in a log, their places
 * in sorted runs merged as bytes); `--store log` the same log appends with no index at all (the floor; no reads);
 * `--store index` the product's key index (storage/drive/key-index/drive-index.ts: the same shape, with records
 * checked, a manifest, replay and volume drops), flushed every 500 ms like `runs`.
 *
 * SQLite is not a dependency of svc: `--store sqlite` needs `better-sqlite3`, which has no prebuilt binary reachable
 * here and builds from source against the local node headers:
 * `npm_config_nodedir=/usr npm install --no-save better-sqlite3@11` (about a minute). Without it: one line on
 * stderr, exit code 2. A bad option: the same.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { emit } from './report.js';
import { RUNS_WORKER } from './index-runs-worker.js';
import { checkOptions, optionValue } from './cli-options.js';

checkOptions('bench:index', `Usage: npm run bench:index [-- options]
What a synced key index per drive would cost the 4 KiB PUT: four stores (one per drive, each a worker thread), N
writers putting a 2,433-byte record under a new key into all four, then point reads; CPU per round.
Options:
  --store KIND           sqlite (needs better-sqlite3), files (today's way), runs (a lean index in JavaScript),
                         log (the log appends alone), index (svc's key index); default sqlite
  --dir DIR              where the stores go (default /var/tmp/svc-index-bench; give each run a fresh file system)
  --writers N            writers (default 16)
  --seconds S            length of each phase (default 5)
  --sync FULL|NORMAL     SQLite's synchronous setting (default FULL)
  -h, --help             this text
`, { values: ['--dir', '--writers', '--seconds', '--sync', '--store'] });

function fail(message: string): never {
  process.stderr.write(`bench:index: ${message}\n`);
  process.exit(2);
}


const dir = optionValue('--dir', '/var/tmp/svc-index-bench');
const writers = Number(optionValue('--writers', '16'));
const seconds = Number(optionValue('--seconds', '5'));
const sync = optionValue('--sync', 'FULL');
const store = optionValue('--store', 'sqlite');
if (!Number.isInteger(writers) || writers < 1 || !(seconds > 0) || !['FULL', 'NORMAL'].includes(sync) || !['sqlite', 'files', 'runs', 'log', 'index'].includes(store)) {
  fail('--writers takes a positive integer, --seconds a positive number, --sync FULL or NORMAL, --store sqlite, files, runs, log or index');
}
let modulePath = '';
if (store === 'sqlite') {
  try {
    modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    fail('better-sqlite3 is not installed: npm_config_nodedir=/usr npm install --no-save better-sqlite3@11');
  }
}

const RECORD = 2433;
const storeName = store === 'files' ? 'files+log' : store === 'runs' ? 'log+runs' : store === 'log' ? 'log only' : store === 'index' ? 'key index' : 'sqlite-wal';
/** The key index's compiled module, loaded by its workers (tsx in each worker would measure its loader's hooks too). */
const indexUrl = new URL(`${import.meta.url.endsWith('.ts') ? '../dist/src' : '../src'}/storage/drive/key-index/drive-index.js`, import.meta.url);
if (store === 'index' && !existsSync(indexUrl)) fail(`${indexUrl.pathname} is missing: build first (npx tsc -b)`);
const crcPath = createRequire(import.meta.url).resolve('@node-rs/crc32');
const DRIVES = 4;

// Plain JavaScript for the workers: one database each, a transaction per message.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + workerData.sync);
db.exec('CREATE TABLE IF NOT EXISTS rec (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID');
const put = db.prepare('INSERT OR REPLACE INTO rec (k, v) VALUES (?, ?)');
const get = db.prepare('SELECT v FROM rec WHERE k = ?').pluck();
const puts = db.transaction((items) => { for (const it of items) put.run(it.k, it.v); });
parentPort.on('message', (m) => {
  try {
    if (m.op === 'put') { puts(m.items); parentPort.postMessage({ id: m.id, found: m.items.map(() => 0) }); return; }
    parentPort.postMessage({ id: m.id, found: m.items.map((k) => (get.get(k) === undefined ? 0 : 1)) });
  } catch (e) { parentPort.postMessage({ id: m.id, error: String(e) }); }
});
`;

// `--store files`: what a drive does today for the same puts (storage/drive/commit-log.ts, io-worker-source.ts): the
// batch's records appended to a log in one O_DSYNC write (group commit), then per record its key's directory made and
// its metadata file written to a temp name and renamed in, unsynced. Without the checkpoints' syncfs (about once a
// second per drive), so it flatters today's files a little.
const FILES_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const root = workerData.path;
fs.mkdirSync(root + '/tmp', { recursive: true });
fs.mkdirSync(root + '/bench', { recursive: true });
const log = fs.openSync(root + '/commit.log', fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC);
let n = 0;
const dirOf = (k) => root + '/bench/' + Buffer.from(k).toString('utf8').split('\\0')[1];
parentPort.on('message', (m) => {
  try {
    if (m.op === 'put') {
      fs.writeSync(log, Buffer.concat(m.items.map((it) => it.v)));
      for (const it of m.items) {
        const dir = dirOf(it.k);
        fs.mkdirSync(dir, { recursive: true });
        const tmp = root + '/tmp/' + (n++) + '.part';
        fs.writeFileSync(tmp, it.v);
        fs.renameSync(tmp, dir + '/xl.meta');
      }
      parentPort.postMessage({ id: m.id, found: m.items.map(() => 0) });
      return;
    }
    parentPort.postMessage({ id: m.id, found: m.items.map((k) => { try { fs.readFileSync(dirOf(k) + '/xl.meta'); return 1; } catch { return 0; } }) });
  } catch (e) { parentPort.postMessage({ id: m.id, error: String(e) }); }
});
`;

// `--store index`: the product's key index, one per drive, flushed every 500 ms as the runs store is. Messages that
// arrive before the index is open wait for it.
const INDEX_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = (async () => {
  const { DriveIndex } = await import(workerData.indexUrl);
  return new DriveIndex(workerData.path);
})();
let lastFlush = Date.now();
const split = (k) => { const s = Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('utf8'); const at = s.indexOf('\\0'); return [s.slice(0, at), s.slice(at + 1)]; };
parentPort.on('message', (m) => {
  ready.then((ix) => {
    if (m.op === 'put') {
      ix.put(m.items.map((it) => { const [volume, key] = split(it.k); return { volume, key, meta: it.v }; }));
      if (Date.now() - lastFlush >= 500) { ix.flush(); lastFlush = Date.now(); }
      parentPort.postMessage({ id: m.id, found: m.items.map(() => 0) });
      return;
    }
    parentPort.postMessage({ id: m.id, found: m.items.map((k) => { const [volume, key] = split(k); return ix.get(volume, key) === null ? 0 : 1; }) });
  }).catch((e) => parentPort.postMessage({ id: m.id, error: String(e && e.stack || e) }));
});
`;

interface Waiter { resolve(found: number): void; reject(err: Error): void }

/** One database's worker, with the calls of one turn sent as one message. */
class Drive {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter[]>();
  readonly #queues = { put: [] as { item: unknown; waiter: Waiter }[], get: [] as { item: unknown; waiter: Waiter }[] };
  #id = 0;

  constructor(path: string) {
    const source = store === 'files' ? FILES_WORKER : store === 'runs' || store === 'log' ? RUNS_WORKER : store === 'index' ? INDEX_WORKER : WORKER;
    this.#worker = new Worker(source, { eval: true, workerData: { module: modulePath, path, sync, crc: crcPath, record: RECORD, indexed: store === 'runs', indexUrl: indexUrl.href } });
    // Per call of the message, 1 when a read found its key (0 for puts).
    this.#worker.on('message', (m: { id: number; found?: number[]; error?: string }) => {
      const waiters = this.#waiting.get(m.id) ?? [];
      this.#waiting.delete(m.id);
      waiters.forEach((w, i) => (m.error === undefined ? w.resolve(m.found?.[i] ?? 0) : w.reject(new Error(m.error))));
    });
  }

  call(op: 'put' | 'get', item: unknown): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.#queues[op].length === 0) setImmediate(() => this.#flush(op));
      this.#queues[op].push({ item, waiter: { resolve, reject } });
    });
  }

  #flush(op: 'put' | 'get'): void {
    const batch = this.#queues[op];
    this.#queues[op] = [];
    const id = this.#id++;
    this.#waiting.set(id, batch.map((b) => b.waiter));
    this.#worker.postMessage({ id, op, items: batch.map((b) => b.item) });
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }
}

const rssMiB = (): number => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);

/** `writers` loops of `step` for `seconds`: rounds per second and CPU per round. */
async function measure(step: (n: number) => Promise<void>): Promise<{ roundsPerSec: number; cpuMsPerRound: number; peakRssMiB: number }> {
  let rounds = 0;
  let peak = rssMiB();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: writers }, async () => {
    while (performance.now() - t0 < seconds * 1000) {
      await step(rounds);
      if (++rounds % 1000 === 0) peak = Math.max(peak, rssMiB());
    }
  }));
  const cpu = process.cpuUsage(cpu0);
  return {
    roundsPerSec: Math.round(rounds / ((performance.now() - t0) / 1000)),
    cpuMsPerRound: +((cpu.user + cpu.system) / 1000 / rounds).toFixed(3),
    peakRssMiB: peak,
  };
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const drives = Array.from({ length: DRIVES }, (_, i) => new Drive(join(dir, store === 'sqlite' ? `d${i + 1}.db` : `d${i + 1}`)));
try {
  const record = Buffer.alloc(RECORD, 0x5a);
  let written = 0;
  const puts = await measure(async () => {
    const key = Buffer.from(`bench\0small/${writers}/${written++}`);
    await Promise.all(drives.map((d) => d.call('put', { k: key, v: record })));
  });
  emit({ scenario: 'index-put', store: storeName, sync: store === 'sqlite' ? sync : 'log O_DSYNC', drives: DRIVES, writers, recordBytes: RECORD, ...puts });
  // The log alone indexes nothing: there is nothing to read back.
  if (store !== 'log') {
    const gets = await measure(async () => {
      const key = Buffer.from(`bench\0small/${writers}/${Math.floor(Math.random() * written)}`);
      const found = await Promise.all(drives.map((d) => d.call('get', key)));
      if (found.some((f) => f !== 1)) throw new Error(`a written key was not found: ${key.toString()}`);
    });
    emit({ scenario: 'index-get', store: storeName, drives: DRIVES, readers: writers, keys: written, ...gets });
  }
} finally {
  await Promise.all(drives.map((d) => d.terminate()));
  rmSync(dir, { recursive: true, force: true });
}
