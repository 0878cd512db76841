import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigErrors, loadConfig, parseAddress } from './load.js';
import { expandEllipsis } from './ellipsis.js';
import { chooseSetSize } from './erasure-layout.js';
import { defaultParity } from '../common/index.js';

const cwd = '/srv';

test('ellipsis expands ranges, zero padding, and iterates the last range outermost', () => {
  assert.deepEqual(expandEllipsis('/data{1...4}'), ['/data1', '/data2', '/data3', '/data4']);
  assert.deepEqual(expandEllipsis('/d{01...03}'), ['/d01', '/d02', '/d03']);
  assert.deepEqual(expandEllipsis('http://node{1...2}/d{1...2}'),
    ['http://node1/d1', 'http://node2/d1', 'http://node1/d2', 'http://node2/d2']);
  assert.deepEqual(expandEllipsis('/plain'), ['/plain']);
  assert.throws(() => expandEllipsis('/d{4...1}'), /end must not be below the start/);
});

test('set size and default parity follow MinIO (REFERENCE facts 3, 4)', () => {
  assert.equal(chooseSetSize([1], []), 1);
  assert.equal(chooseSetSize([4], [4]), 4);
  assert.equal(chooseSetSize([16], [16]), 16);
  assert.equal(chooseSetSize([32], [32]), 16);
  assert.equal(chooseSetSize([12], [12]), 12);
  assert.equal(chooseSetSize([16], [4, 4]), 16);
  assert.throws(() => chooseSetSize([17], [17]), /cannot be split/);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 16].map(defaultParity), [0, 1, 1, 2, 2, 3, 3, 4, 4]);
});

test('defaults: :9000, :9001, console and probes on, 4 drives → 1 set EC:2', () => {
  const c = loadConfig({ drives: ['/data{1...4}'] }, {}, cwd);
  assert.deepEqual(c.address, { host: '', port: 9000 });
  assert.deepEqual(c.consoleAddress, { host: '', port: 9001 });
  assert.equal(c.consoleEnabled, true);
  assert.equal(c.healthEndpointsEnabled, true);
  assert.deepEqual(c.sets, [['/data1', '/data2', '/data3', '/data4']]);
  assert.equal(c.parity, 2);
  assert.equal(c.credentials, undefined);
  assert.equal(c.configDir, '/');
  assert.deepEqual(c.domains, []);
  assert.ok(Object.isFrozen(c));
  assert.deepEqual(loadConfig({ drives: ['/d'] }, { SVC_DOMAIN: 's3.example.com, s3.internal' }, cwd).domains, ['s3.example.com', 's3.internal']);
});

test('new drives get the key index unless SVC_KEY_INDEX is false (README, "Drive layouts")', () => {
  assert.equal(loadConfig({ drives: ['/d'] }, {}, cwd).keyIndex, true);
  assert.equal(loadConfig({ drives: ['/d'] }, { SVC_KEY_INDEX: '1' }, cwd).keyIndex, true);
  assert.equal(loadConfig({ drives: ['/d'] }, { SVC_KEY_INDEX: 'false' }, cwd).keyIndex, false);
  assert.equal(loadConfig({ drives: ['/d'] }, { SVC_KEY_INDEX: '0' }, cwd).keyIndex, false);
  assert.throws(() => loadConfig({ drives: ['/d'] }, { SVC_KEY_INDEX: 'sometimes' }, cwd), /SVC_KEY_INDEX="sometimes".*expected true or false/);
});

test('flags win over the environment; host:port binds one interface', () => {
  const env = { SVC_ADDRESS: ':7000', SVC_CONSOLE_ADDRESS: ':7001' };
  const c = loadConfig({ drives: ['/d'], address: '127.0.0.2:9100' }, env, cwd);
  assert.deepEqual(c.address, { host: '127.0.0.2', port: 9100 });
  assert.deepEqual(c.consoleAddress, { host: '', port: 7001 });
  assert.deepEqual(parseAddress('[::1]:9000', 'x'), { host: '::1', port: 9000 });
});

test('parity override is validated 0..N/2', () => {
  assert.equal(loadConfig({ drives: ['/d{1...4}'] }, { SVC_STORAGE_CLASS_STANDARD: 'EC:1' }, cwd).parity, 1);
  assert.equal(loadConfig({ drives: ['/d{1...4}'] }, { SVC_STORAGE_CLASS_STANDARD: 'EC:0' }, cwd).parity, 0);
  assert.throws(() => loadConfig({ drives: ['/d{1...4}'] }, { SVC_STORAGE_CLASS_STANDARD: 'EC:3' }, cwd), /between 0 and 2/);
  assert.throws(() => loadConfig({ drives: ['/d{1...4}'] }, { SVC_STORAGE_CLASS_STANDARD: 'RS:2' }, cwd), /expected EC:<parity>/);
});

test('invalid values are refused together, each naming its variable and the expected form', () => {
  const env = { SVC_ADDRESS: '9000', SVC_CONSOLE_ENABLE: 'maybe', SVC_HEALTH_ENDPOINT_ENABLE: 'nope', SVC_OBS_LOGGER_LEVEL: 'loud' };
  try {
    loadConfig({ drives: ['/d'] }, env, cwd);
    assert.fail('expected ConfigErrors');
  } catch (err) {
    assert.ok(err instanceof ConfigErrors);
    const text = err.message;
    assert.match(text, /SVC_ADDRESS="9000".*expected :<port>/);
    assert.match(text, /SVC_CONSOLE_ENABLE="maybe".*expected true or false/);
    assert.match(text, /SVC_HEALTH_ENDPOINT_ENABLE="nope"/);
    assert.match(text, /SVC_OBS_LOGGER_LEVEL="loud"/);
    assert.equal(err.problems.length, 4);
  }
});

test('credentials from env, *_FILE variants and MINIO_ROOT_* aliases', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'secret'), 'file-secret-123\n');
  const a = loadConfig({ drives: ['/d'] }, { SVC_ACCESS_KEY: 'admin', SVC_SECRET_KEY_FILE: join(dir, 'secret') }, cwd);
  assert.deepEqual(a.credentials, { accessKey: 'admin', secretKey: 'file-secret-123' });
  const b = loadConfig({ drives: ['/d'] }, { MINIO_ROOT_USER: 'minioadmin', MINIO_ROOT_PASSWORD: 'minioadmin' }, cwd);
  assert.deepEqual(b.credentials, { accessKey: 'minioadmin', secretKey: 'minioadmin' });
  assert.throws(() => loadConfig({ drives: ['/d'] }, { SVC_ACCESS_KEY: 'admin' }, cwd), /only one of/);
  assert.throws(() => loadConfig({ drives: ['/d'] }, { SVC_ACCESS_KEY: 'admin', SVC_SECRET_KEY: 'short' }, cwd), /shorter than 8/);
});

test('no drives is a usage error; relative drives resolve against cwd', () => {
  assert.throws(() => loadConfig({ drives: [] }, {}, cwd), /no drives given/);
  const c = loadConfig({ drives: ['./data/drive{1...4}'] }, {}, '/home/u');
  assert.equal(c.sets[0]?.[0], '/home/u/data/drive1');
  assert.equal(c.configDir, '/home/u/data');
});

test('node URLs: kept as given for the cluster topology, and root credentials are required', () => {
  const creds = { SVC_ACCESS_KEY: 'admin', SVC_SECRET_KEY: 'secret-123', SVC_HOSTNAME: 'node2', SVC_STORAGE_CLASS_STANDARD: 'EC:2' };
  const c = loadConfig({ drives: ['http://node{1...4}:9000/srv/d{1...4}'] }, creds, cwd);
  assert.deepEqual(c.endpoints, ['http://node{1...4}:9000/srv/d{1...4}']);
  assert.deepEqual(c.sets, []);
  assert.equal(c.hostname, 'node2');
  assert.equal(c.storageClass, 'EC:2');
  assert.equal(c.configDir, cwd);
  assert.equal(loadConfig({ drives: ['/d{1...4}'] }, {}, cwd).endpoints, undefined);
  assert.throws(() => loadConfig({ drives: ['http://node{1...4}:9000/srv/d{1...4}'] }, {}, cwd),
    /node URLs are given but SVC_ACCESS_KEY and SVC_SECRET_KEY are not set/);
  assert.throws(() => loadConfig({ drives: ['http://node1:9000/srv/d1', '/srv/d2'] }, creds, cwd), /"\/srv\/d2" is a path but/);
});

test('SVC_KMS_SECRET_KEY and SVC_SSE_C_ALLOW_HTTP: valid values are kept, a malformed key is a config error', () => {
  const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
  const c = loadConfig({ drives: ['/d'] }, { SVC_KMS_SECRET_KEY: key, SVC_SSE_C_ALLOW_HTTP: 'true' }, cwd);
  assert.equal(c.kmsSecretKey, key);
  assert.equal(c.sseCOverHttp, true);
  const none = loadConfig({ drives: ['/d'] }, {}, cwd);
  assert.equal(none.kmsSecretKey, undefined);
  assert.equal(none.sseCOverHttp, undefined);
  for (const bad of ['nokey', `k1:${Buffer.alloc(16).toString('base64')}`, 'k1:!!!']) {
    assert.throws(() => loadConfig({ drives: ['/d'] }, { SVC_KMS_SECRET_KEY: bad }, cwd), (err: unknown) => err instanceof ConfigErrors && /SVC_KMS_SECRET_KEY/.test(String(err.message) + JSON.stringify(err)));
  }
});
