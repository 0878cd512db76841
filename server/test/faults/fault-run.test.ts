/**
 * Issue 10 Must show 1: a fault run on a 4-node × 4-drive cluster (one set of 16, EC:4). Eight concurrent AWS SDK
 * clients spread over the nodes do PUT (some beyond 1 MiB, so shard files exist), GET, DELETE and multipart
 * uploads on 50 keys while seeded faults hit the cluster: kill -9 and restart of one node at a time, bit flips
 * in shard files and in xl.meta records (on drives in the key-index layout, whose records are not files, a shard
 * file instead: faults/injector.ts), a full drive (a 64 MiB tmpfs filled up) and a drive directory renamed
 * away and back. Once every node is back and ready, the checker (checker.ts) verifies the history: no lost
 * acknowledged write, no corrupt or half-written content (after recovery or in any read during the run), listings
 * that agree with reads, and no NoSuchKey for an object being overwritten (an engine bug this run found twice:
 * storage/engine/read-during-overwrite.test.ts). Other stale reads during the run are printed with their
 * history, not asserted.
 * The seed is printed; SVC_FAULT_SEED=<seed> replays the same fault schedule and client choices.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { decodeObjectMeta } from '../../src/storage/format/index.js';
import { listFiles, objectDir } from '../helpers/drive-files.js';
import { readRecordOnDisk } from '../helpers/drive-records.js';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { adminCall } from '../admin/admin-client.js';
import { bodyBytes, eventually } from '../helpers/s3-client.js';
import { startCluster, type TestCluster } from '../cluster/helpers/cluster.js';
import { checkHistory, type FinalValue, type Finding } from './checker.js';
import { History } from './history.js';
import { runFaults, waitAllDrivesOnline } from './injector.js';
import { runSeed, seededRng } from './rng.js';
import { nodeClients, runWorkload } from './workload.js';

const BUCKET = 'faults';
const NODES = 4;
const DRIVES = 4;
/** Faults are injected during the first FAULT_MS of the workload; the clients go on until WORKLOAD_MS. */
const FAULT_MS = 60_000;
const WORKLOAD_MS = 70_000;
const KEYS = Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? `dir${i % 3}/sub/k${i}` : `k${i}`));

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The heal queue counters of one node (admin heal-status). */
interface HealQueueCounters {
  queued: number;
  running: number;
  healedObjects: number;
  failed: number;
}

/** The key's state through node client `s3`: its content, absent (null), or why it did not read. */
async function readFinal(s3: S3Client, key: string): Promise<FinalValue | null | { error: string }> {
  const t0 = Date.now();
  try {
    const res = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }), { abortSignal: AbortSignal.timeout(20_000) });
    const body = await bodyBytes(res.Body);
    return { sha: sha(body), size: body.length };
  } catch (err) {
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NoSuchKey') return null;
    return { error: `${e.$metadata?.httpStatusCode ?? '-'} ${e.name ?? ''} ${e.message ?? ''} after ${Date.now() - t0} ms` };
  }
}

async function listAll(s3: S3Client): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let token: string | undefined;
  do {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token, MaxKeys: 17 }));
    for (const o of r.Contents ?? []) out.set(o.Key ?? '', o.Size ?? -1);
    token = r.NextContinuationToken;
  } while (token !== undefined);
  return out;
}

/** A failing key's story, for the report: its operations (seconds since the workload began, as in the fault log) and its records on every drive. */
function describeKey(c: TestCluster, history: History, key: string, since: number): string {
  const offset = since - performance.timeOrigin;
  const at = (t: number | undefined): string => (t === undefined ? '?' : ((t - offset) / 1000).toFixed(2));
  const lines = [`# ${key}:`];
  for (const w of history.writes.filter((o) => o.key === key)) {
    lines.push(`#   ${w.kind} ${w.sha?.slice(0, 12) ?? '-'} client ${w.client} [${at(w.start)}, ${at(w.end)}] ${w.status}`);
  }
  for (const r of history.reads.filter((o) => o.key === key)) lines.push(`#   get -> ${r.sha?.slice(0, 12) ?? 'absent'} client ${r.client} [${at(r.start)}, ${at(r.end)}]`);
  for (const n of c.nodes) {
    const drives = [1, 2, 3, 4].map((d) => {
      try {
        // The drive's record of the key in either layout (a metadata file or its key index), as a restart would find it.
        const rec = readRecordOnDisk(c.drive(n.index, d), BUCKET, key);
        if (rec === null) return `d${d}:no record`;
        const m = decodeObjectMeta(rec);
        return `d${d}:${m.versionId.slice(0, 8)}@${new Date(m.modTime).toISOString().slice(14, 23)}/${m.size}`;
      } catch (err) {
        return `d${d}:${(err as { code?: string }).code ?? (err as Error).name}`;
      }
    });
    lines.push(`#   node ${n.index}: ${drives.join(' ')}`);
    const parts = [1, 2, 3, 4].map((d) => `d${d}:[${listFiles(objectDir(c.drive(n.index, d), BUCKET, key))
      .filter((f) => /\/part\.\d+$/.test(f)).map((f) => `${f.split('/').slice(-2).join('/').slice(0, 8)}…${f.split('/').at(-1)}=${statSync(f).size}`).join(' ')}]`);
    lines.push(`#     shards ${parts.join(' ')}`);
    for (const line of n.output().split('\n').filter((l) => l.includes(key)).slice(-5)) lines.push(`#     log: ${line.slice(0, 400)}`);
  }
  return `${lines.join('\n')}\n`;
}

// CI-sized: about two minutes on 2 cores; the timeout only guards against a hang.
test('fault run: no acknowledged write lost, nothing corrupt, under kills, bit flips, a full drive and a vanishing drive', { timeout: 300_000 }, async (t) => {
  const began = Date.now();
  const seed = runSeed();
  process.stdout.write(`# fault run seed ${seed} (replay: SVC_FAULT_SEED=${seed})\n`);
  const rng = seededRng(seed);
  const fullDrive = { node: rng.int(1, NODES), drive: rng.int(1, DRIVES) };
  const c = await startCluster({ nodes: NODES, drivesPerNode: DRIVES, tmpfsDrives: [{ ...fullDrive, sizeMiB: 64 }] });
  const s3 = nodeClients(c.nodes.map((n) => n.url), c.credentials);
  t.after(async () => {
    for (const cl of s3) cl.destroy();
    await c.destroy();
  });
  await s3[0]!.send(new CreateBucketCommand({ Bucket: BUCKET }));
  process.stdout.write(`# cluster up after ${((Date.now() - began) / 1000).toFixed(1)} s; full-drive fault on node ${fullDrive.node} d${fullDrive.drive}\n`);

  const history = new History();
  const t0 = Date.now();
  let faultsDone = false;
  const [stats, faults] = await Promise.all([
    runWorkload({
      s3, bucket: BUCKET, keys: KEYS, clients: 8, rng: rng.fork(1000), history, stop: () => faultsDone && Date.now() - t0 > WORKLOAD_MS,
    }),
    runFaults({ cluster: c, bucket: BUCKET, fullDrive, drivesPerNode: DRIVES, minHolders: 14 }, rng.fork(2000), () => Date.now() - t0 > FAULT_MS)
      .finally(() => { faultsDone = true; }),
  ]);
  for (const line of faults.log) process.stdout.write(`#   ${line}\n`);

  // Recovery: every node running and ready.
  for (const n of c.nodes) if (n.current === undefined || n.current.proc.exitCode !== null || n.current.proc.signalCode !== null) await c.start(n.index);
  assert.ok(await waitAllDrivesOnline(c, NODES * DRIVES, 120_000), 'every node ready again and seeing all drives after the faults');
  // Healed: every node's heal queue drained (heals queued by partial writes, damaged reads and returning drives).
  const queues = async (): Promise<HealQueueCounters[]> => Promise.all(c.nodes.map(async (n) => {
    const r = await adminCall(n.url, c.credentials.accessKey, c.credentials.secretKey, 'GET', 'heal-status');
    return (r.json as { queue: HealQueueCounters }).queue;
  }));
  const drained = await eventually(async () => (await queues()).every((q) => q.queued === 0 && q.running === 0), 60_000);
  const heals = (await queues()).reduce((a, q) => ({ healedObjects: a.healedObjects + q.healedObjects, failed: a.failed + q.failed }), { healedObjects: 0, failed: 0 });

  // Final state of every key, read through two different nodes (they must agree).
  const final = new Map<string, FinalValue | null>();
  const unreadable: Finding[] = [];
  for (const [i, key] of KEYS.entries()) {
    const views: (FinalValue | null)[] = [];
    for (const n of [i % NODES, (i + 1) % NODES]) {
      let v: FinalValue | null | { error: string } = { error: 'not read' };
      await eventually(async () => { v = await readFinal(s3[n]!, key); return v === null || !('error' in v); }, 30_000);
      const got: FinalValue | null | { error: string } = v;
      if (got !== null && 'error' in got) unreadable.push({ key, problem: `does not read through node ${n + 1}: ${got.error}` });
      else views.push(got);
    }
    if (views.length === 2 && JSON.stringify(views[0]) !== JSON.stringify(views[1])) {
      unreadable.push({ key, problem: `nodes disagree: ${JSON.stringify(views)}` });
    }
    if (views[0] !== undefined) final.set(key, views[0]);
  }
  const listings = await Promise.all(s3.map((cl) => listAll(cl)));
  const result = checkHistory(history, final, listings);
  const lost = [...result.lost, ...unreadable];

  const acked = history.writes.filter((w) => w.status === 'ok').length;
  const kinds = Object.entries(stats.byKind).map(([k, v]) => `${k} ${v.acknowledged}/${v.attempted}`).join(', ');
  const injected = Object.entries(faults.injected).map(([k, v]) => `${k} ${v}`).join(', ');
  process.stdout.write([
    `# ops ${stats.ops} (acknowledged/attempted: ${kinds}; retries ${stats.retries})`,
    `# writes attempted ${history.writes.length}, acknowledged ${acked}, unknown outcome ${history.writes.length - acked}; reads checked ${result.readsChecked}, reads failed ${history.failedReads}`,
    `# faults injected: ${injected} (skipped ${faults.skipped})`,
    `# heal queues ${drained ? 'drained' : 'NOT drained after 60 s'}: objects healed ${heals.healedObjects}, heal failures ${heals.failed} (counters since each node's last start)`,
    `# keys checked ${result.keysChecked}, objects verified ${result.objectsVerified}, lost ${lost.length}, corrupt ${result.corrupt.length}, listing mismatches ${result.listing.length}`,
    `# reads during the run: ${result.absentDuringOverwrite.length} NoSuchKey during an overwrite (asserted 0), ${result.stale.length} other stale reads (reported, not asserted)`,
    `# fault run took ${((Date.now() - began) / 1000).toFixed(1)} s (seed ${seed})`,
  ].join('\n') + '\n');

  const bad = new Set([...lost, ...result.corrupt, ...result.stale, ...result.absentDuringOverwrite].map((f) => f.key));
  for (const key of bad) process.stdout.write(describeKey(c, history, key, t0));
  const show = (fs: Finding[]): string => fs.slice(0, 10).map((f) => `${f.key}: ${f.problem}`).join('\n');
  assert.deepEqual(lost, [], `lost acknowledged writes (seed ${seed}):\n${show(lost)}`);
  assert.deepEqual(result.corrupt, [], `corrupt content (seed ${seed}):\n${show(result.corrupt)}`);
  if (result.stale.length > 0) process.stdout.write(`# stale reads (seed ${seed}):\n${show(result.stale).replace(/^/gm, '#   ')}\n`);
  // Fixed since the run found it (storage/engine/read-during-overwrite.test.ts): asserted from now on.
  assert.deepEqual(result.absentDuringOverwrite, [], `NoSuchKey during an overwrite (seed ${seed}):\n${show(result.absentDuringOverwrite)}`);
  assert.deepEqual(result.listing, [], `listings disagree with reads (seed ${seed}):\n${show(result.listing)}`);
  // The run did what it claims: every kind of fault happened and enough work was acknowledged to mean something.
  for (const [kind, n] of Object.entries(faults.injected)) assert.ok(n > 0, `no ${kind} fault was injected`);
  for (const kind of ['put', 'get', 'delete', 'multipart']) assert.ok((stats.byKind[kind]?.acknowledged ?? 0) > 0, `no ${kind} succeeded`);
  assert.ok(acked > 50, `only ${acked} writes were acknowledged`);
  assert.ok(result.objectsVerified > 10, `only ${result.objectsVerified} objects verified`);
});
