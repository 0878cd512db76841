import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexHost, IndexOpError, indexHostFor } from './index-host.js';

const rec = (s: string): Uint8Array => Buffer.from(`record ${s}`);
const text = (v: unknown): string | null => (v === null ? null : Buffer.from(v as Uint8Array).toString());

test('one worker serves several drives: puts of one turn, reads, deletes and drops answer in order; reads do not wait for the puts of their turn', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-index-host-'));
  const host = new IndexHost();
  try {
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    await Promise.all([host.call({ op: 'open', dir: a }), host.call({ op: 'open', dir: b })]);
    // One turn: puts to both drives, a read of the key being put, a second put of the same key. The read is answered
    // first, from before the turn's puts (not acknowledged yet: index-worker.ts handle); the puts in their order.
    const settled: string[] = [];
    const track = (name: string, p: Promise<unknown>): Promise<unknown> => p.then((v) => { settled.push(name); return v; });
    const answers = await Promise.all([
      track('put a1', host.call({ op: 'put', dir: a, items: [{ volume: 'v', key: 'k', meta: rec('a1'), previous: true }] })),
      track('put b1', host.call({ op: 'put', dir: b, items: [{ volume: 'v', key: 'k', meta: rec('b1'), previous: true }] })),
      track('get a', host.call({ op: 'get', dir: a, volume: 'v', key: 'k' })),
      track('put a2', host.call({ op: 'put', dir: a, items: [{ volume: 'v', key: 'k', meta: rec('a2'), previous: true }] })),
    ]);
    assert.equal(settled[0], 'get a');
    assert.deepEqual(answers[0], [null]);
    assert.deepEqual(answers[1], [null]);
    assert.equal(answers[2], null);
    assert.equal(text((answers[3] as unknown[])[0]), 'record a1');
    // The next turn's read sees the acknowledged puts.
    assert.equal(text(await host.call({ op: 'get', dir: a, volume: 'v', key: 'k' })), 'record a2');
    assert.equal(text(await host.call({ op: 'delete', dir: b, volume: 'v', key: 'k' })), 'record b1');
    assert.equal(await host.call({ op: 'get', dir: b, volume: 'v', key: 'k' }), null);
    await host.call({ op: 'dropVolume', dir: a, volume: 'v' });
    assert.equal(await host.call({ op: 'get', dir: a, volume: 'v', key: 'k' }), null);
    await assert.rejects(host.call({ op: 'get', dir: join(root, 'never-opened'), volume: 'v', key: 'k' }), (e: unknown) => e instanceof IndexOpError && e.code === 'ENOTOPEN');

    // A worker that stops: what waited is rejected, the next call gets a new worker with the indexes opened again.
    await host.call({ op: 'put', dir: b, items: [{ volume: 'v', key: 'kept', meta: rec('b2') }] });
    await host.terminate();
    assert.equal(text(await host.call({ op: 'get', dir: b, volume: 'v', key: 'kept' })), 'record b2');
    await Promise.all([host.call({ op: 'close', dir: a }), host.call({ op: 'close', dir: b })]);
  } finally {
    await host.terminate();
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('a device\'s drives are dealt among its workers, each drive always to the same one', () => {
  const dev = `test-device-${Math.random()}`;
  const [a, b, c] = ['/x/a', '/x/b', '/x/c'].map((d) => indexHostFor(dev, `${dev}${d}`, 2));
  assert.notEqual(a, b);
  assert.equal(a, c);
  assert.equal(indexHostFor(dev, `${dev}/x/b`, 2), b, 'asked again (a drive reopened): the same worker');
});
