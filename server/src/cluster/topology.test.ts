import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/index.js';
import { parseTopology } from './topology.js';
import type { NodeIdentity, Topology } from './topology.js';

const node1: NodeIdentity = { port: 9000, hosts: ['127.0.0.1'] };

function shape(t: Topology): string[][][] {
  return t.pools.map((p) => p.sets.map((s) => s.map((e) => e.id)));
}

test('4 nodes × 4 drives: one pool, one set of 16 spread over the nodes (last range outermost), EC:4', () => {
  const t = parseTopology(['http://127.0.0.{1...4}:9000/srv/d{1...4}'], node1);
  assert.equal(t.kind, 'url');
  assert.equal(t.pools.length, 1);
  const pool = t.pools[0]!;
  assert.equal(pool.setDriveCount, 16);
  assert.equal(pool.parity, 4);
  const ids = pool.sets[0]!.map((e) => e.id);
  assert.deepEqual(ids.slice(0, 5), [
    'http://127.0.0.1:9000/srv/d1', 'http://127.0.0.2:9000/srv/d1', 'http://127.0.0.3:9000/srv/d1',
    'http://127.0.0.4:9000/srv/d1', 'http://127.0.0.1:9000/srv/d2',
  ]);
  assert.deepEqual(t.endpoints.filter((e) => e.isLocal).map((e) => e.path), ['/srv/d1', '/srv/d2', '/srv/d3', '/srv/d4']);
  assert.equal(t.self, '127.0.0.1:9000');
  assert.deepEqual(t.peers, ['127.0.0.2:9000', '127.0.0.3:9000', '127.0.0.4:9000']);
  assert.deepEqual(t.nodes, ['127.0.0.1:9000', ...t.peers]);
  const e = pool.sets[0]![5]!;
  assert.deepEqual({ pool: e.pool, set: e.set, index: e.index, host: e.host, port: e.port, node: e.node },
    { pool: 0, set: 0, index: 5, host: '127.0.0.2', port: 9000, node: '127.0.0.2:9000' });
});

test('set sizing and parity per pool (table)', () => {
  const cases: { args: string[]; sets: number; size: number; parity: number }[] = [
    { args: ['http://n{1...4}:9000/d{1...4}'], sets: 1, size: 16, parity: 4 },
    { args: ['http://n{1...8}:9000/d{1...16}'], sets: 8, size: 16, parity: 4 },
    { args: ['http://n{1...4}:9000/d{1...2}'], sets: 1, size: 8, parity: 4 },
    { args: ['http://n{1...6}:9000/d{1...2}'], sets: 1, size: 12, parity: 4 },
    { args: ['http://n{1...2}:9000/d{1...2}'], sets: 1, size: 4, parity: 2 },
    { args: ['http://n{1...3}:9000/d1'], sets: 1, size: 3, parity: 1 },
    { args: ['http://n1:9000/d1', 'http://n2:9000/d1', 'http://n3:9000/d1', 'http://n4:9000/d1'], sets: 1, size: 4, parity: 2 },
    { args: ['/srv/d{1...4}'], sets: 1, size: 4, parity: 2 },
    { args: ['/srv/d1'], sets: 1, size: 1, parity: 0 },
  ];
  for (const c of cases) {
    const t = parseTopology(c.args, { port: 9000, hosts: ['n1'] });
    const p = t.pools[0]!;
    assert.deepEqual([p.sets.length, p.setDriveCount, p.parity], [c.sets, c.size, c.parity], c.args.join(' '));
  }
});

test('each ellipsis argument is a pool; plain URLs form one pool', () => {
  const t = parseTopology(['http://127.0.0.{1...4}:9000/srv/d{1...4}', 'http://127.0.0.{5...8}:9000/srv/d{1...2}'], node1);
  assert.deepEqual(t.pools.map((p) => [p.sets.length, p.setDriveCount, p.parity]), [[1, 16, 4], [1, 8, 4]]);
  assert.deepEqual(t.pools[1]!.sets[0]!.map((e) => e.pool), new Array(8).fill(1));
  assert.equal(t.nodes.length, 8);
  const plain = parseTopology(['http://a:9000/x', 'http://b:9000/x', 'http://a:9000/y', 'http://b:9000/y'], { port: 9000, hosts: ['b'] });
  assert.deepEqual(shape(plain), [[['http://a:9000/x', 'http://b:9000/x', 'http://a:9000/y', 'http://b:9000/y']]]);
  assert.deepEqual(plain.endpoints.map((e) => e.isLocal), [false, true, false, true]);
});

test('locality: host and port must both match; URL without port takes the node port; host names are case-insensitive', () => {
  const args = ['http://127.0.0.1:{9001...9004}/srv/d{1...2}'];
  const t = parseTopology(args, { port: 9003, hosts: ['127.0.0.1'] });
  assert.deepEqual(t.endpoints.filter((e) => e.isLocal).map((e) => e.id), ['http://127.0.0.1:9003/srv/d1', 'http://127.0.0.1:9003/srv/d2']);
  assert.equal(t.self, '127.0.0.1:9003');
  const noPort = parseTopology(['http://Node{1...2}/d{1...2}'], { port: 9100, hosts: ['NODE2', 'other'] });
  assert.deepEqual(noPort.endpoints.filter((e) => e.isLocal).map((e) => e.id), ['http://node2:9100/d1', 'http://node2:9100/d2']);
  const v6 = parseTopology(['http://[::1]:9000/a', 'http://[::2]:9000/a'], { port: 9000, hosts: ['::1'] });
  assert.deepEqual(v6.endpoints.map((e) => [e.node, e.isLocal]), [['[::1]:9000', true], ['[::2]:9000', false]]);
  const paths = parseTopology(['/d{1...4}'], { port: 9000, hosts: [] });
  assert.ok(paths.endpoints.every((e) => e.isLocal && e.node === ''));
  assert.deepEqual(paths.peers, []);
});

test('parity override applies to every pool and is checked against the set size', () => {
  const t = parseTopology(['http://n{1...4}:9000/d{1...4}'], { port: 9000, hosts: ['n1'] }, { parity: 'EC:2' });
  assert.equal(t.pools[0]!.parity, 2);
  assert.throws(() => parseTopology(['http://n{1...2}:9000/d1'], { port: 9000, hosts: ['n1'] }, { parity: 'EC:2' }), /too high/);
});

test('bad endpoint lists are refused with a ConfigError naming the problem (table)', () => {
  const cases: { args: string[]; re: RegExp }[] = [
    { args: [], re: /no drives given/ },
    { args: ['/srv/d1', 'http://n1:9000/srv/d2'], re: /"\/srv\/d1" is a path but "http:\/\/n1:9000\/srv\/d2" is a URL/ },
    { args: ['http://n{1...4}:9000/d{1...4}', 'http://n5:9000/d1'], re: /mix ellipsis and plain forms/ },
    { args: ['ftp://n1/d1', 'ftp://n2/d1'], re: /scheme ftp/ },
    { args: ['http://n1:9000', 'http://n2:9000'], re: /has no drive path/ },
    { args: ['http://user:pw@n1:9000/d', 'http://n2:9000/d'], re: /credentials, a query or a fragment/ },
    { args: ['http://n1:9000/d', 'http://N1:9000/d/'], re: /given twice/ },
    { args: ['http://n{1...2}:9000/d{1...2}', 'http://n{1...2}:9000/d{2...3}'], re: /given twice/ },
    { args: ['http://n{1...17}:9000/d1'], re: /cannot be split/ },
    { args: ['http://x{1...4}:9000/d{1...4}'], re: /none of the endpoints is on this node \(port 9000, host n1, localhost\)/ },
    { args: ['http://n1:9000/a', 'http://localhost:9000/b'], re: /name this node twice/ },
    { args: ['relative/d{1...4}'], re: /not an absolute path/ },
    { args: ['http://n{4...1}:9000/d1'], re: /end must not be below the start/ },
  ];
  for (const c of cases) {
    assert.throws(() => parseTopology(c.args, { port: 9000, hosts: ['n1', 'localhost'] }),
      (err: unknown) => err instanceof ConfigError && c.re.test(err.message) && err.hint.length > 0, c.args.join(' '));
  }
});
