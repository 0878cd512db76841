/** What a bench run measures: one svc node, a 4-node svc cluster, any S3 endpoint (a peer), or the ceiling server. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../test/cluster/helpers/cluster.js';
import { startSvc } from '../test/helpers/svc-process.js';
import { parseBool } from '../src/config/load.js';
import { withDescendants } from './proc-stats.js';

/** A running system under test, seen as endpoints plus the server processes to sample. */
export interface Target {
  urls: string[];
  accessKey: string;
  secretKey: string;
  /** Server processes to sample (RSS, CPU); empty for an external endpoint without --pid. */
  pids: () => number[];
  /** 'max' for svc (one process per node), 'sum' for a peer made of several processes (Swift). */
  memory: 'max' | 'sum';
  /** svc only: each server process's output so far, which `--trace-gc` makes a log of its collections (gc-count.ts). */
  output?: () => string[];
  layout: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Default parity of a single node with `drives` drives (MinIO's table, README). */
function erasureOf(drives: number): string {
  if (drives === 1) return 'none';
  return `EC:${drives <= 3 ? 1 : drives <= 5 ? 2 : drives <= 7 ? 3 : 4}`;
}

/**
 * How the servers (which inherit this environment) format their drives: SVC_KEY_INDEX, key index by default (README,
 * "Drive layouts"). In the layout line, so that a run's figures say which layout they are of.
 */
function recordsIn(): string {
  return parseBool(process.env.SVC_KEY_INDEX, 'SVC_KEY_INDEX', true) ? 'key index' : 'metadata file per key';
}

/** Node options from BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), after --trace-gc (gc-count.ts). */
function benchNodeArgs(): string[] {
  return ['--trace-gc', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];
}

/** One svc process on `drives` temp drives. */
export async function singleNode(drives: number): Promise<Target> {
  // The built server (bin/svc.js), as users run it: RSS without the tsx loader. BENCH_NODE_ARGS adds node options,
  // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see what limits a scenario.
  const nodeArgs = benchNodeArgs();
  // BENCH_DIR puts the drives on a chosen file system (default: the temp directory); see fs-commit.ts for why it matters.
  // A BENCH_DIR not there yet is made (as the temp directory would be there).
  if (process.env.BENCH_DIR !== undefined) mkdirSync(process.env.BENCH_DIR, { recursive: true });
  const dir = process.env.BENCH_DIR === undefined ? undefined : mkdtempSync(join(process.env.BENCH_DIR, 'svc-bench-'));
  const svc = await startSvc({ drives, dir, built: true, nodeArgs, env: { SVC_OBS_LOGGER_LEVEL: 'error', UV_THREADPOOL_SIZE: '64' } });
  return {
    urls: [svc.url], accessKey: svc.accessKey, secretKey: svc.secretKey, pids: () => [svc.proc.pid ?? 0], memory: 'max',
    output: () => [svc.output()],
    layout: { target: 'svc', nodes: 1, drives, erasure: erasureOf(drives), records: recordsIn(), dir: svc.dir },
    async stop() { await svc.stop(); svc.cleanup(); },
  };
}

/**
 * 4 nodes × 4 drives on 127.0.0.1–4 (one set of 16, EC:4), each in its own mount namespace (needs root). BENCH_NODE_ARGS
 * reach every node, as for one node: a profile per node is what says which node's work bounds a figure (issue 9 point
 * 5); the nodes are stopped with SIGTERM first, so that `--cpu-prof` writes its files on the way out.
 */
export async function fourNodes(): Promise<Target> {
  const c = await startCluster({ nodes: 4, drivesPerNode: 4, built: true, nodeArgs: benchNodeArgs(), env: { SVC_OBS_LOGGER_LEVEL: 'error', UV_THREADPOOL_SIZE: '64' } });
  const urls = c.nodes.map((n) => n.url);
  // Storage opens after the peers and the format quorum are reached: wait until every node is ready.
  for (const url of urls) {
    for (let i = 0; i < 240; i++) {
      if ((await fetch(`${url}/health/ready`).catch(() => undefined))?.status === 200) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return {
    urls, accessKey: c.credentials.accessKey, secretKey: c.credentials.secretKey,
    pids: () => c.nodes.map((n) => n.current?.proc.pid ?? 0).filter((p) => p > 0), memory: 'max',
    output: () => c.nodes.map((n) => n.output()),
    layout: { target: 'svc', nodes: 4, drivesPerNode: 4, drives: 16, erasure: 'EC:4 (one set of 16)', records: recordsIn() },
    async stop() {
      await Promise.all(c.nodes.map(async (n) => {
        const p = n.current;
        if (p === undefined || p.proc.exitCode !== null || p.proc.signalCode !== null) return;
        p.proc.kill('SIGTERM');
        // A node that does not stop in time is killed by destroy() below.
        await Promise.race([p.exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
      }));
      await c.destroy();
    },
  };
}

/**
 * Any S3 endpoint (a peer from ../shared/peers): nothing started or stopped here. `pids` are the processes that
 * make up that one server (Swift: proxy, object, container, account, memcached), with their worker processes:
 * memory and CPU are summed.
 */
export function external(url: string, accessKey: string, secretKey: string, pids: number[]): Target {
  return {
    urls: [url], accessKey, secretKey, pids: () => (pids.length === 0 ? [] : withDescendants(pids)), memory: 'sum',
    layout: { target: url, pids },
    async stop() {},
  };
}

/**
 * The ceiling server (ceiling-server.ts: the least a durable small PUT and a GET must do here, nothing else), on four
 * log files in BENCH_DIR or the temp directory. Small objects only: it has no multipart upload or listing.
 */
export async function ceiling(): Promise<Target> {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'svc-ceiling-'));
  const accessKey = 'CEILING';
  const secretKey = randomBytes(20).toString('hex');
  const script = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', script, dir, accessKey, secretKey], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) resolve(JSON.parse(line) as { url: string; pid: number });
    });
    proc.once('exit', (code) => reject(new Error(`ceiling server exited with ${code} before listening`)));
  });
  return {
    urls: [started.url], accessKey, secretKey, pids: () => [started.pid], memory: 'max',
    layout: { target: 'ceiling server (server/bench/ceiling-server.ts)', logs: 4, dir },
    async stop() {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
