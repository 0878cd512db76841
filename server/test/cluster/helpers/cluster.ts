/**
 * Several real `svc` nodes on one machine, the way they would run on separate machines (DESIGN.md "Several nodes
 * on one machine"): node i listens on 127.0.0.i:<port>, every node gets the same endpoint list
 * `http://127.0.0.{1...N}:<port>/srv/svc-<run>/d{1...M}` and the same credentials, and each runs in its own mount
 * namespace with its own directory bind-mounted on the common path, so it sees only its own drives there.
 * Needs root (the tests run as root, as CI does).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, rmdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3Client } from '../../helpers/s3-client.js';
import { BUILT_SVC, SVC_NODE_OPTIONS, svcNodeArgs } from '../../helpers/svc-process.js';

/** Root credentials of a test cluster. */
export interface Credentials {
  accessKey: string;
  secretKey: string;
}

/** One node process. */
export interface NodeProcess {
  proc: ChildProcess;
  output: () => string;
  /** Exit code (or the signal name) once the process is gone. */
  exited: Promise<number | string>;
}

/** One node of a {@link TestCluster}. */
export interface ClusterNode {
  /** 1-based. */
  index: number;
  host: string;
  url: string;
  /** The console's URL when the cluster was started with `console: true`. */
  consoleUrl: string | undefined;
  /** The directory bind-mounted on the common path inside the node's namespace (holds d1..dM). */
  dir: string;
  /** The running process, undefined while stopped. */
  current: NodeProcess | undefined;
  output: () => string;
}

/** What {@link TestCluster.spawn} may change for one start (refusal tests). */
export interface SpawnOverrides {
  args?: string[];
  credentials?: Credentials;
}

/** A running test cluster. */
export interface TestCluster {
  nodes: ClusterNode[];
  port: number;
  /** The common drive path inside every node's namespace. */
  mount: string;
  /** The endpoint arguments every node gets. */
  args: string[];
  credentials: Credentials;
  /** Drive directory `d` (1-based) of node `i` (1-based) as seen from the test. */
  drive(i: number, d: number): string;
  /** Starts node i's process (without waiting for it to be up). */
  spawn(i: number, overrides?: SpawnOverrides): NodeProcess;
  /** Starts node i and resolves once it printed its S3 URL. */
  start(i: number): Promise<void>;
  kill9(i: number): Promise<void>;
  /** SIGKILL every node, unmount nothing (namespaces die with the processes), remove the directories. */
  destroy(): Promise<void>;
}

/**
 * A port free on 127.0.0.1..N (same port for every node, since the addresses differ). From 10000–19999: below Linux's
 * ephemeral range (32768–60999), which a concurrent test's outgoing connection may take between this check and the
 * node's bind, and apart from the integration suite's reserved ports (20000–31999, integration/test/helpers/net.ts).
 */
async function freePort(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 10_000);
    let ok = true;
    for (let i = 1; i <= n && ok; i++) {
      ok = await new Promise<boolean>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(false));
        s.listen(port, `127.0.0.${i}`, () => s.close(() => resolve(true)));
      });
    }
    if (ok) return port;
  }
  throw new Error('no free port found on 127.0.0.1..N');
}

function waitForUp(p: NodeProcess, what: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms / 1000} s:\n${p.output()}`)), ms);
    const check = (): void => {
      if (/S3 API:\s+\S+/.test(p.output())) {
        clearTimeout(timer);
        resolve();
      }
    };
    p.proc.stdout?.on('data', check);
    check();
    void p.exited.then((code) => { clearTimeout(timer); reject(new Error(`${what} exited with ${code} before listening:\n${p.output()}`)); });
  });
}

/** One pool of a test cluster: its nodes (numbered after the previous pools' nodes) and drives per node. */
export interface PoolShape {
  nodes: number;
  drivesPerNode: number;
}

/** A drive that is its own small filesystem (a tmpfs of fixed size), so a test can fill it up (ENOSPC). */
export interface TmpfsDrive {
  /** 1-based node number. */
  node: number;
  /** 1-based drive number on that node. */
  drive: number;
  sizeMiB: number;
}

/**
 * Starts a cluster and waits until every node serves S3: `nodes` nodes of `drivesPerNode` drives in one pool, or
 * `pools` (one ellipsis argument per pool, as `svc server http://127.0.0.{1...4}:P/m/d{1...4} http://127.0.0.{5...8}:P/m/d{1...2}`).
 */
export async function startCluster(opts: {
  nodes: number; drivesPerNode: number; pools?: PoolShape[]; env?: Record<string, string>;
  /** Arguments for node itself before the script (e.g. `--cpu-prof`, which NODE_OPTIONS does not allow). */
  nodeArgs?: string[];
  /** Also run the console on every node, on 127.0.0.i:<another common port> (default: console disabled). */
  console?: boolean;
  /**
   * Drives mounted as a tmpfs of fixed size (in the test's namespace, so their contents survive node restarts);
   * the nodes then bind their directory recursively so they see these mounts. Unmounted by destroy().
   */
  tmpfsDrives?: readonly TmpfsDrive[];
  /** Run the built server (server/bin/svc.js, as users do) instead of the sources through tsx (the bench). */
  built?: boolean;
}): Promise<TestCluster> {
  const pools = opts.pools ?? [{ nodes: opts.nodes, drivesPerNode: opts.drivesPerNode }];
  const total = pools.reduce((a, p) => a + p.nodes, 0);
  const port = await freePort(total);
  let consolePort = opts.console === true ? await freePort(total) : undefined;
  while (consolePort === port) consolePort = await freePort(total);
  const root = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  const mount = `/srv/svc-${randomBytes(6).toString('hex')}`;
  mkdirSync(mount, { recursive: true });
  let first = 1;
  const args = pools.map((p) => {
    const arg = `http://127.0.0.{${first}...${first + p.nodes - 1}}:${port}${mount}/d{1...${p.drivesPerNode}}`;
    first += p.nodes;
    return arg;
  });
  const drivesOf = (k: number): number => {
    let n = k;
    for (const p of pools) {
      if (n < p.nodes) return p.drivesPerNode;
      n -= p.nodes;
    }
    return 0;
  };
  const credentials = { accessKey: `AK${randomBytes(9).toString('hex').toUpperCase()}`, secretKey: randomBytes(20).toString('hex') };
  const nodes: ClusterNode[] = Array.from({ length: total }, (_, k) => {
    const dir = join(root, `node${k + 1}`);
    for (let d = 1; d <= drivesOf(k); d++) mkdirSync(join(dir, `d${d}`), { recursive: true });
    const node: ClusterNode = {
      index: k + 1, host: `127.0.0.${k + 1}`, url: `http://127.0.0.${k + 1}:${port}`, dir, current: undefined,
      consoleUrl: consolePort !== undefined ? `http://127.0.0.${k + 1}:${consolePort}` : undefined,
      output: () => node.current?.output() ?? '',
    };
    return node;
  });
  const tmpfsMounts: string[] = [];
  const unmountTmpfs = (): void => {
    for (const m of tmpfsMounts.splice(0)) {
      try { execFileSync('umount', ['-l', m], { stdio: 'ignore' }); } catch { /* not mounted */ }
    }
  };
  try {
    for (const t of opts.tmpfsDrives ?? []) {
      const at = join(root, `node${t.node}`, `d${t.drive}`);
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${t.sizeMiB}m`, 'tmpfs', at]);
      tmpfsMounts.push(at);
    }
  } catch (err) {
    unmountTmpfs();
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    throw err;
  }
  const bind = tmpfsMounts.length > 0 ? '--rbind' : '--bind';
  const nodeOf = (i: number): ClusterNode => {
    const n = nodes[i - 1];
    if (n === undefined) throw new Error(`no node ${i}`);
    return n;
  };
  const cluster: TestCluster = {
    nodes, port, mount, args, credentials,
    drive: (i, d) => join(nodeOf(i).dir, `d${d}`),
    spawn(i, overrides = {}) {
      const node = nodeOf(i);
      const creds = overrides.credentials ?? credentials;
      const svcArgs = ['server', '--address', `${node.host}:${port}`,
        ...(consolePort !== undefined ? ['--console-address', `${node.host}:${consolePort}`] : []), ...(overrides.args ?? args)];
      const env = {
        ...process.env,
        SVC_ACCESS_KEY: creds.accessKey,
        SVC_SECRET_KEY: creds.secretKey,
        SVC_OBS_LOGGER_LEVEL: 'warn',
        SVC_CONSOLE_ENABLE: consolePort !== undefined ? 'true' : 'false',
        UV_THREADPOOL_SIZE: '16',
        ...opts.env,
        SVC_TEST_ARGS: JSON.stringify(svcArgs),
      };
      // unshare and sh exec in place, so the pid is node's own and kill -9 hits the server itself.
      const proc = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c',
        `mount ${bind} "$1" "$2" && shift 2 && exec "$@"`, 'sh', node.dir, mount, process.execPath, ...SVC_NODE_OPTIONS, ...(opts.nodeArgs ?? []),
        ...(opts.built === true ? [BUILT_SVC, ...svcArgs] : svcNodeArgs())],
      { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      proc.stdout?.on('data', (c: Buffer) => { out += c.toString(); });
      proc.stderr?.on('data', (c: Buffer) => { out += c.toString(); });
      const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
      const p: NodeProcess = { proc, output: () => out, exited };
      node.current = p;
      return p;
    },
    async start(i) {
      const p = cluster.spawn(i);
      await waitForUp(p, `node ${i}`, 90_000);
    },
    async kill9(i) {
      const p = nodeOf(i).current;
      if (p !== undefined && p.proc.exitCode === null && p.proc.signalCode === null) {
        p.proc.kill('SIGKILL');
        await p.exited;
      }
    },
    async destroy() {
      await Promise.all(nodes.map((n) => cluster.kill9(n.index)));
      unmountTmpfs();
      rmSync(root, { recursive: true, force: true, maxRetries: 5 });
      try { rmdirSync(mount); } catch { /* already gone */ }
    },
  };
  try {
    await Promise.all(nodes.map((n) => cluster.start(n.index)));
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return cluster;
}

/** AWS SDK clients for the nodes of a test cluster, one per node, made on first use (`s3(1)` talks to node 1). */
export function nodeClients(cluster: () => TestCluster): { s3(i: number): S3Client; destroy(): void } {
  const clients = new Map<number, S3Client>();
  return {
    s3(i) {
      let cl = clients.get(i);
      if (cl === undefined) {
        const c = cluster();
        cl = s3Client(c.nodes[i - 1]!.url, c.credentials.accessKey, c.credentials.secretKey);
        clients.set(i, cl);
      }
      return cl;
    },
    destroy() {
      for (const cl of clients.values()) cl.destroy();
    },
  };
}
