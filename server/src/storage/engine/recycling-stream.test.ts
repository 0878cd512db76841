import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBuffers } from '../drive/index.js';
import { RecyclingReadable } from './recycling-stream.js';

const CHUNK = 256 * 1024;

/** Chunks from the shared pool, chunk i filled with byte (i * 7) & 0xff (its bytes tell which chunk they were). */
async function* pooledChunks(count: number, seen: Set<ArrayBuffer>): AsyncGenerator<Buffer> {
  for (let i = 0; i < count; i++) {
    const b = readBuffers.take(CHUNK);
    seen.add(b.buffer as ArrayBuffer);
    b.fill((i * 7) & 0xff);
    await sleep(0);
    yield b;
  }
}

/** Reads the whole response slowly (a pause every 64 KiB, so the server's socket fills up) and checks every byte. */
async function readChecked(res: IncomingMessage, total: number): Promise<number> {
  let at = 0;
  let wrong = 0;
  for await (const piece of res as AsyncIterable<Buffer>) {
    for (let j = 0; j < piece.length; j++) if (piece[j] !== ((Math.floor((at + j) / CHUNK) * 7) & 0xff)) wrong++;
    at += piece.length;
    if (at % (64 * 1024) < piece.length) await sleep(1);
  }
  assert.equal(at, total);
  return wrong;
}

test('chunk buffers go back to the pool only after the response socket took their bytes: a slow client gets every byte right', async (t) => {
  const count = 160; // 40 MiB through a few dozen buffers
  const seen = new Set<ArrayBuffer>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(count * CHUNK) });
    new RecyclingReadable(pooledChunks(count, seen), res, 1 << 20).pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve) => get({ port, host: '127.0.0.1', path: '/' }, resolve));
  const wrong = await readChecked(res, count * CHUNK);
  assert.equal(wrong, 0, 'bytes of a chunk were overwritten by a later chunk before they were sent');
  // The pool was really used: far fewer buffers than chunks (each buffer came back and was lent again).
  assert.ok(seen.size < count / 2, `${seen.size} buffers for ${count} chunks`);
});

test('a client that goes away mid-body: nothing is handed back (a write may be in flight) and the source is closed', async (t) => {
  let closed = false;
  const seen = new Set<ArrayBuffer>();
  async function* source(): AsyncGenerator<Buffer> {
    try {
      yield* pooledChunks(1000, seen);
    } finally {
      closed = true;
    }
  }
  let body: RecyclingReadable | undefined;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(1000 * CHUNK) });
    body = new RecyclingReadable(source(), res, 1 << 20);
    // As fastify does (reply.js sendStream): a response closed before the end destroys the body.
    res.once('close', () => { if (!res.writableFinished) body!.destroy(); });
    body.pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve) => get({ port, host: '127.0.0.1', path: '/' }, resolve));
  await new Promise<void>((resolve) => res.once('data', () => resolve()));
  res.destroy();
  for (let i = 0; i < 200 && !closed; i++) await sleep(10);
  assert.ok(closed, 'the source generator was closed');
  assert.ok(body!.destroyed);
});

test('a fake sink: chunks read out while the sink still holds bytes stay lent; at finish they all come back', async () => {
  const sink = Object.assign(new (await import('node:events')).EventEmitter(), { writableLength: 1 });
  const seen = new Set<ArrayBuffer>();
  const body = new RecyclingReadable(pooledChunks(3, seen), sink, 1 << 20);
  const got: Buffer[] = [];
  body.on('data', (c: Buffer) => got.push(c));
  await once(body, 'end');
  assert.equal(got.length, 3);
  // writableLength stayed 1 the whole time: nothing came back yet, even though every chunk was read out.
  const again = readBuffers.take(CHUNK);
  assert.ok(!seen.has(again.buffer as ArrayBuffer), 'a buffer came back while the sink still held bytes');
  const free = readBuffers.freeBytes;
  sink.emit('finish');
  assert.equal(readBuffers.freeBytes - free, 3 * 256 * 1024);
});
