/**
 * Scenario 2 of issue 7: health-checked failover (SPEC §4 rule 7) on a real multi-node deployment, as deploy-kit
 * renders it: 4 nodes × 1 drive, EC:2, every node started with the same endpoint list
 * (`http://node{1...4}:9000/data1`), so any one node may be down. The fast suite renders a 1 s check interval;
 * `docker pause` freezes node2 → HAProxy marks it DOWN after 3 failed checks while the client's signed PUT/GET
 * loops keep succeeding through the other three; `docker unpause` → UP after 2 good checks. The other nodes stay UP
 * throughout: their readiness must not wait on the frozen peer (it answers from the last completed check when the
 * current one is slow, server/src/http/health).
 *
 * A frozen node still accepts TCP connections (the kernel completes the handshake), so the rendered `retries` and
 * `option redispatch` (connection failures only) do not move a request that was already forwarded to it: that
 * request waits (`timeout server` is 1 h) and is answered once the node is thawed. Such requests are counted and
 * reported; no request fails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BASE_IMAGES, deployKit, docker, requireDocker, s3Client, sampleStat, serverRow, showStat, startStack } from './helpers/index.js';
import type { Stack, StatRow } from './helpers/index.js';

const BUCKET = 'failover';
const NODES = ['node1', 'node2', 'node3', 'node4'] as const;
const FROZEN = 'node2';
/**
 * Concurrent client loops. A request already forwarded to the frozen node waits for it; with leastconn the others
 * then go to the three live nodes (a held connection counts against node2), so the loops go on.
 */
const WORKERS = 4;

let stack: Stack;

before(async () => {
  requireDocker();
  stack = await startStack({ name: 'failover', nodes: 4, drivesPerNode: 1, parity: 2, healthCheck: { intervalSeconds: 1, timeoutSeconds: 1 } });
  const s3 = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca: stack.ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  } finally {
    s3.destroy();
  }
});

after(async () => {
  await stack?.destroy();
});

/** The `default-server` line of a rendered haproxy.cfg. */
function defaultServerLine(cfg: string): string {
  const line = cfg.split('\n').map((l) => l.trim()).find((l) => l.startsWith('default-server '));
  assert.ok(line !== undefined, 'haproxy.cfg has a default-server line');
  return line;
}

test('the default rendering checks every 10 s, down after 3 failures, up after 2 successes; this stack renders 1 s', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-it-defaults-'));
  try {
    await deployKit(['init', '--dir', dir, '--s3-host', 's3.svc.test', '--console-host', 'console.svc.test', '--proxy', 'haproxy',
      '--tls', 'pem', '--nodes', '4', '--image', 'svc/server:latest', '--proxy-image', BASE_IMAGES.haproxy], { cwd: dir });
    const cfg = await readFile(join(dir, 'haproxy/haproxy.cfg'), 'utf8');
    assert.equal(defaultServerLine(cfg), 'default-server inter 10s fall 3 rise 2');
    assert.match(cfg, /^\s+timeout check 5s$/m);
    // A request whose connection to a dead node fails is retried on another one (DOCKER.md §2): nodes - 1, at most 3.
    assert.match(cfg, /^\s+retries 3$/m);
    assert.match(cfg, /^\s+option redispatch 1$/m);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const live = await readFile(join(stack.dir, 'haproxy/haproxy.cfg'), 'utf8');
  assert.equal(defaultServerLine(live), 'default-server inter 1s fall 3 rise 2');
  // The live stack is the rendered cluster: every node runs the same endpoint list, and all four are in both backends.
  const compose = await readFile(join(stack.dir, 'compose.yaml'), 'utf8');
  assert.equal(compose.match(/"http:\/\/node\{1\.\.\.4\}:9000\/data1"/g)?.length, 4, 'each node is started with the cluster endpoint list');
  assert.match(compose, /SVC_STORAGE_CLASS_STANDARD: "EC:2"/);
  for (const node of NODES) {
    assert.match(live, new RegExp(`^\\s+server ${node} ${node}:9000 check `, 'm'));
    assert.match(live, new RegExp(`^\\s+server ${node} ${node}:9001 check `, 'm'));
  }
});

interface Outcome { readonly op: 'PUT' | 'GET'; readonly start: number; readonly end: number; readonly error: string | undefined }

/** WORKERS loops of signed PUT then GET (of a fresh body) through the proxy until stopped; every outcome is kept. */
function startClients(): { outcomes: Outcome[]; stop: () => Promise<void> } {
  const s3 = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca: stack.ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  const outcomes: Outcome[] = [];
  let running = true;
  const timed = async (op: Outcome['op'], fn: () => Promise<string | undefined>): Promise<boolean> => {
    const start = Date.now();
    let error: string | undefined;
    try {
      error = await fn();
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    outcomes.push({ op, start, end: Date.now(), error });
    return error === undefined;
  };
  const loop = async (worker: number): Promise<void> => {
    for (let i = 0; running; i++) {
      const key = `w${worker}/k${i % 16}`;
      const body = randomBytes(16 * 1024);
      if (!await timed('PUT', async () => { await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body })); return undefined; })) continue;
      await timed('GET', async () => {
        const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
        return Buffer.from(await got.Body!.transformToByteArray()).equals(body) ? undefined : 'body differs';
      });
    }
  };
  const loops = Array.from({ length: WORKERS }, (_, w) => loop(w));
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      s3.destroy();
    },
  };
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The cluster part of `deploy-kit status --json` (the admin API's information report through the proxy). */
interface ClusterStatus { summary?: { status: string; servers: { online: number; total: number }; drives: { online: number; total: number } }; error?: string }

async function clusterStatus(): Promise<{ cluster: ClusterStatus; backends: { servers: { backend: string; server: string; status: string }[] }; ms: number }> {
  const start = Date.now();
  const r = await stack.kit(['status', '--json']);
  const ms = Date.now() - start;
  assert.equal(r.code, 0, `deploy-kit status exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return { ...JSON.parse(r.stdout) as { cluster: ClusterStatus; backends: { servers: { backend: string; server: string; status: string }[] } }, ms };
}

/** A server's status as the proxy sees it now (`UP`, `UP 2/3`, `DOWN`…). */
function statusOf(backend: string, server: string): string {
  return serverRow(showStat(stack.container('proxy')), backend, server)['status'] ?? '';
}

/** The distinct consecutive values of one server's status over the samples (e.g. UP, UP 1/3, UP 2/3, DOWN, …). */
function transitions(samples: readonly StatRow[][], backend: string, server: string): string[] {
  const seen: string[] = [];
  for (const rows of samples) {
    const row = rows.find((r) => r['pxname'] === backend && r['svname'] === server);
    const status = row?.['status'];
    if (status !== undefined && status !== seen[seen.length - 1]) seen.push(status);
  }
  return seen;
}

test('docker pause of one cluster node → DOWN after 3 failed checks, others stay UP, 0 failed requests; unpause → UP after 2', async (t) => {
  const proxy = stack.container('proxy');
  const frozen = stack.container(FROZEN);
  for (const backend of ['s3', 'console']) for (const node of NODES) await waitFor(`${backend}/${node} UP`, () => statusOf(backend, node) === 'UP');
  const healthy = await clusterStatus();
  assert.deepEqual(healthy.cluster.summary && [healthy.cluster.summary.status, healthy.cluster.summary.servers, healthy.cluster.summary.drives],
    ['online', { online: 4, total: 4 }, { online: 4, total: 4 }], JSON.stringify(healthy.cluster));
  const before = serverRow(showStat(proxy), 's3', FROZEN);
  assert.equal(before['check_fall'], '3');
  assert.equal(before['check_rise'], '2');

  const sampler = sampleStat(proxy);
  const clients = startClients();
  let marks: { pausedAt: number; downAt: number; unpausedAt: number; upAt: number } | undefined;
  let whileFrozen: Awaited<ReturnType<typeof clusterStatus>> | undefined;
  let samples: StatRow[][] = [];
  try {
    // Every node serves the client before one is frozen (leastconn spreads the loops).
    const served = (rows: readonly StatRow[], node: string): number => Number(serverRow(rows, 's3', node)['stot']);
    const start = showStat(proxy);
    await waitFor('every node serving', () => { const now = showStat(proxy); return NODES.every((n) => served(now, n) > served(start, n) + 3); });
    const pausedAt = Date.now();
    docker(['pause', frozen]);
    let downAt = 0;
    let unpausedAt = 0;
    try {
      await waitFor(`s3/${FROZEN} DOWN`, () => statusOf('s3', FROZEN) === 'DOWN');
      downAt = Date.now();
      // Keep the client going while the node is marked DOWN: these requests are served by the three others.
      const done = clients.outcomes.length;
      whileFrozen = await clusterStatus();
      await waitFor(`requests served while ${FROZEN} is DOWN`, () => clients.outcomes.length > done + 40);
    } finally {
      docker(['unpause', frozen]);
      unpausedAt = Date.now();
    }
    await waitFor(`s3/${FROZEN} UP again`, () => statusOf('s3', FROZEN) === 'UP');
    const upAt = Date.now();
    await waitFor(`console/${FROZEN} UP again`, () => statusOf('console', FROZEN) === 'UP');
    marks = { pausedAt, downAt, unpausedAt, upAt };
    // A few more round trips with all four nodes back.
    const done = clients.outcomes.length;
    await waitFor('requests served after the node came back', () => clients.outcomes.length > done + 20);
  } finally {
    await clients.stop();
    // The sampler drops its last (maybe cut-off) sample and its output can lag under load: the state read right
    // now (UP, which the waits above saw) closes the sequence.
    samples = [...await sampler.stop(), showStat(proxy)];
  }
  assert.ok(marks !== undefined);
  const { pausedAt, downAt, unpausedAt, upAt } = marks;
  const after = serverRow(showStat(proxy), 's3', FROZEN);

  const failures = clients.outcomes.filter((o) => o.error !== undefined);
  const whileDown = clients.outcomes.filter((o) => o.start >= downAt && o.end <= unpausedAt && o.error === undefined);
  // In flight from before the DOWN mark until after unpause: forwarded to the frozen node, answered once it thawed.
  const held = clients.outcomes.filter((o) => o.start < downAt && o.end > unpausedAt);
  const slowest = Math.max(...clients.outcomes.filter((o) => o.start >= downAt && o.end <= unpausedAt).map((o) => o.end - o.start), 0);
  t.diagnostic(`${clients.outcomes.length} requests (${clients.outcomes.filter((o) => o.op === 'PUT').length} PUT), ${failures.length} failed; `
    + `${whileDown.length} served by the other nodes while ${FROZEN} was DOWN (slowest ${slowest} ms); `
    + `${held.length} held by the frozen node until unpause`);
  t.diagnostic(`DOWN ${((downAt - pausedAt) / 1000).toFixed(1)} s after the pause; UP ${((upAt - unpausedAt) / 1000).toFixed(1)} s after unpause`);
  t.diagnostic(`s3/${FROZEN} states: ${transitions(samples, 's3', FROZEN).join(' → ')}`);
  t.diagnostic(`deploy-kit status took ${(healthy.ms / 1000).toFixed(1)} s with every node up, ${((whileFrozen?.ms ?? 0) / 1000).toFixed(1)} s with ${FROZEN} frozen`);

  assert.deepEqual(failures.map((f) => `${f.op}: ${f.error}`), [], 'no client request failed');
  // `deploy-kit status` while the node was frozen: the proxy's view and the admin API's cluster summary agree.
  assert.ok(whileFrozen !== undefined);
  assert.ok(whileFrozen.backends.servers.some((s) => s.backend === 's3' && s.server === FROZEN && s.status === 'DOWN'), JSON.stringify(whileFrozen.backends));
  const frozenSummary = whileFrozen.cluster.summary;
  assert.deepEqual(frozenSummary && [frozenSummary.status, frozenSummary.servers, frozenSummary.drives],
    ['degraded', { online: 3, total: 4 }, { online: 3, total: 4 }], JSON.stringify(whileFrozen.cluster));
  assert.ok(whileDown.some((o) => o.op === 'PUT') && whileDown.some((o) => o.op === 'GET'),
    'PUTs and GETs kept succeeding through the other nodes while one was frozen');
  // HAProxy shows the checks still needed: fall 3 is "UP 2/3", "UP 1/3" after the first and second failures, DOWN at
  // the third; rise 2 is "DOWN 1/2" after the first success, UP at the second.
  const s3States = transitions(samples, 's3', FROZEN);
  assert.deepEqual(s3States, ['UP', 'UP 2/3', 'UP 1/3', 'DOWN', 'DOWN 1/2', 'UP'], s3States.join(' → '));
  assert.equal(Number(after['chkfail']) - Number(before['chkfail']), 3, 'failed checks counted while it was UP');
  assert.equal(Number(after['chkdown']) - Number(before['chkdown']), 1, 'one UP → DOWN transition');
  assert.ok(transitions(samples, 'console', FROZEN).includes('DOWN'), 'the console backend marked the frozen node DOWN as well');
  // The live nodes' readiness never waited on the frozen peer past the check timeout: not one failed check.
  for (const backend of ['s3', 'console']) {
    for (const node of NODES.filter((n) => n !== FROZEN)) {
      assert.deepEqual(transitions(samples, backend, node), ['UP'], `${backend}/${node} stayed UP`);
    }
  }
});
