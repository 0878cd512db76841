/**
 * `npm run bench`: starts a real server on temp drives and prints one JSON line per scenario (issue 2):
 * 4 KiB PUT/GET ops/s with p50/p99 at concurrency 1 and 32; 64 MiB PUT/GET MiB/s at concurrency 1 and 4;
 * LIST of 10,000 keys; the server's peak RSS. `--large` adds a 5 GiB PUT and GET to show bounded memory.
 * `--cluster` runs the same scenarios against a 4-node × 4-drive cluster (one set of 16, EC:4; nodes on
 * 127.0.0.1-4, each in its own mount namespace — needs root), spreading requests over the nodes round-robin.
 * Env: BENCH_DRIVES (default 4, single node), BENCH_SECONDS per small-object scenario (default 5).
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Agent } from 'node:http';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startSvc } from '../test/helpers/svc-process.js';
import { startCluster } from '../test/cluster/helpers/cluster.js';

const drives = Number(process.env.BENCH_DRIVES ?? 4);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const large = process.argv.includes('--large');
const cluster = process.argv.includes('--cluster');
// A Buffer with a known length: the SDK treats '' as a stream of unknown length and warns on every request.
const EMPTY = Buffer.alloc(0);

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function emit(line: Record<string, unknown>) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Patterned body without allocating `size` bytes at once. */
function patternStream(size: number): Readable {
  const block = Buffer.alloc(1 << 20, 0x5a);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) { this.push(null); return; }
      const n = Math.min(left, block.length);
      left -= n;
      this.push(n === block.length ? block : block.subarray(0, n));
    },
  });
}

async function drain(body: unknown): Promise<number> {
  let n = 0;
  for await (const c of body as AsyncIterable<Buffer>) n += c.length;
  return n;
}

async function timedOps(concurrency: number, op: (i: number) => Promise<void>): Promise<{ ops: number; lat: number[]; ms: number }> {
  const lat: number[] = [];
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let i = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const n = i++;
      const t0 = performance.now();
      await op(n);
      lat.push(performance.now() - t0);
    }
  }));
  return { ops: lat.length, lat: lat.sort((a, b) => a - b), ms: performance.now() - start };
}

/** What the scenarios run against: one node or a cluster, seen as a list of endpoints. */
interface Target {
  urls: string[];
  accessKey: string;
  secretKey: string;
  pids: () => number[];
  layout: Record<string, unknown>;
  stop(): Promise<void>;
}

async function singleNode(): Promise<Target> {
  const svc = await startSvc({ drives, env: { SVC_OBS_LOGGER_LEVEL: 'error' } });
  const erasure = drives >= 4 ? `EC:${drives <= 5 ? 2 : drives <= 7 ? 3 : 4}` : drives === 1 ? 'none' : 'EC:1';
  return {
    urls: [svc.url], accessKey: svc.accessKey, secretKey: svc.secretKey, pids: () => [svc.proc.pid ?? 0],
    layout: { nodes: 1, drives, erasure },
    async stop() { await svc.stop(); svc.cleanup(); },
  };
}

async function fourNodes(): Promise<Target> {
  const c = await startCluster({ nodes: 4, drivesPerNode: 4, env: { SVC_OBS_LOGGER_LEVEL: 'error', UV_THREADPOOL_SIZE: '16' } });
  const urls = c.nodes.map((n) => n.url);
  // Wait until every node serves: storage opens after the peers and the format quorum are reached.
  for (const url of urls) {
    for (let i = 0; i < 240; i++) {
      if ((await fetch(`${url}/health/ready`).catch(() => undefined))?.status === 200) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return {
    urls, accessKey: c.credentials.accessKey, secretKey: c.credentials.secretKey,
    pids: () => c.nodes.map((n) => n.current?.proc.pid ?? 0).filter((p) => p > 0),
    layout: { nodes: 4, drivesPerNode: 4, drives: 16, erasure: 'EC:4 (one set of 16)' },
    stop: () => c.destroy(),
  };
}

async function main() {
  const target = cluster ? await fourNodes() : await singleNode();
  const clients = target.urls.map((url) => new S3Client({
    endpoint: url, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: target.accessKey, secretAccessKey: target.secretKey },
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }) }),
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  }));
  // Requests are spread over the nodes round-robin (one node: always the same client).
  let turn = 0;
  const client = { send: ((cmd: never) => (clients[turn++ % clients.length] as S3Client).send(cmd)) as S3Client['send'] };
  const peakRssMiBAll = () => Math.max(...target.pids().map(peakRssMiB));
  const rssMiBAll = () => Math.max(...target.pids().map(rssMiB));
  emit({ scenario: 'layout', ...target.layout, node: process.version });
  try {
    await client.send(new CreateBucketCommand({ Bucket: 'bench' }));
    const small = Buffer.alloc(4096, 0x61);
    for (const c of [1, 32]) {
      const put = await timedOps(c, async (i) => { await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `small/${c}/${i}`, Body: small })); });
      emit({ scenario: 'put-4KiB', concurrency: c, ops: put.ops, opsPerSec: Math.round(put.ops / (put.ms / 1000)),
        p50ms: +percentile(put.lat, 50).toFixed(2), p99ms: +percentile(put.lat, 99).toFixed(2) });
      const count = put.ops;
      const get = await timedOps(c, async (i) => {
        const r = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: `small/${c}/${i % count}` }));
        await drain(r.Body);
      });
      emit({ scenario: 'get-4KiB', concurrency: c, ops: get.ops, opsPerSec: Math.round(get.ops / (get.ms / 1000)),
        p50ms: +percentile(get.lat, 50).toFixed(2), p99ms: +percentile(get.lat, 99).toFixed(2) });
    }
    const big = 64 * 1024 * 1024;
    for (const c of [1, 4]) {
      const objects = c * 3;
      let t0 = performance.now();
      await Promise.all(Array.from({ length: c }, async (_, w) => {
        for (let j = w; j < objects; j += c) {
          await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `big/${c}/${j}`, Body: patternStream(big), ContentLength: big }));
        }
      }));
      let s = (performance.now() - t0) / 1000;
      emit({ scenario: 'put-64MiB', concurrency: c, objects, MiBPerSec: +((objects * 64) / s).toFixed(1), serverRssMiB: rssMiBAll() });
      t0 = performance.now();
      await Promise.all(Array.from({ length: c }, async (_, w) => {
        for (let j = w; j < objects; j += c) {
          const r = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: `big/${c}/${j}` }));
          if (await drain(r.Body) !== big) throw new Error('short read');
        }
      }));
      s = (performance.now() - t0) / 1000;
      emit({ scenario: 'get-64MiB', concurrency: c, objects, MiBPerSec: +((objects * 64) / s).toFixed(1), serverRssMiB: rssMiBAll() });
    }
    // LIST of 10,000 keys: fill with empty objects at concurrency 32, then page through with ListObjectsV2.
    const total = 10_000;
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < total) {
        const i = next++;
        await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `list/${String(i).padStart(5, '0')}`, Body: EMPTY, ContentLength: 0 }));
      }
    }));
    const t0 = performance.now();
    let keys = 0;
    let token: string | undefined;
    do {
      const r = await client.send(new ListObjectsV2Command({ Bucket: 'bench', Prefix: 'list/', ContinuationToken: token }));
      keys += r.KeyCount ?? 0;
      token = r.NextContinuationToken;
    } while (token);
    const ms = performance.now() - t0;
    emit({ scenario: 'list-10000', keys, ms: Math.round(ms), keysPerSec: Math.round(keys / (ms / 1000)) });
    if (large) {
      const size = 5 * 1024 * 1024 * 1024;
      const before = peakRssMiBAll();
      let t = performance.now();
      await client.send(new PutObjectCommand({ Bucket: 'bench', Key: 'huge', Body: patternStream(size), ContentLength: size }));
      emit({ scenario: 'put-5GiB', MiBPerSec: +((size / 2 ** 20) / ((performance.now() - t) / 1000)).toFixed(1), peakRssMiBBefore: before, peakRssMiB: peakRssMiBAll() });
      t = performance.now();
      const r = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: 'huge' }));
      const n = await drain(r.Body);
      if (n !== size) throw new Error(`short read of the 5 GiB object: ${n}`);
      emit({ scenario: 'get-5GiB', MiBPerSec: +((size / 2 ** 20) / ((performance.now() - t) / 1000)).toFixed(1), peakRssMiB: peakRssMiBAll() });
    }
    emit({ scenario: 'server-memory', peakRssMiB: peakRssMiBAll(), rssMiB: rssMiBAll(), note: 'largest over the nodes' });
  } finally {
    for (const c of clients) c.destroy();
    await target.stop();
  }
}

await main();
