import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpec } from '../config/index.js';
import { buildTopology } from './topology.js';

function topo(nodes: number, drivesPerNode: number) {
  const { spec } = parseSpec({ version: 1, hosts: { s3: 's3.example.com', console: 'console.example.com' }, proxy: 'haproxy', tls: { mode: 'pem' }, cluster: { nodes, drivesPerNode } });
  assert.ok(spec);
  return buildTopology(spec);
}

test('single node, single drive: /data', () => {
  const t = topo(1, 1);
  assert.deepEqual(t.nodes, [{ name: 'node1', drives: [{ volume: 'node1-data', target: '/data' }] }]);
  assert.deepEqual(t.serverArgs, ['server', '--console-address', ':9001', '/data']);
  assert.equal(t.multiNode, false);
});

test('single node, several drives: /data{1...M}', () => {
  const t = topo(1, 3);
  assert.deepEqual(t.nodes[0]?.drives.map((d) => d.target), ['/data1', '/data2', '/data3']);
  assert.equal(t.serverArgs[3], '/data{1...3}');
});

test('several nodes: shared ellipsis endpoint list', () => {
  assert.equal(topo(4, 4).serverArgs[3], 'http://node{1...4}:9000/data{1...4}');
  assert.equal(topo(3, 1).serverArgs[3], 'http://node{1...3}:9000/data1');
  assert.deepEqual(topo(3, 1).nodes.map((n) => n.name), ['node1', 'node2', 'node3']);
});
