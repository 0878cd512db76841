/**
 * The bench's HTTP/1.1 transport (server/bench/raw-http.ts) against hand-written answers from a raw TCP server:
 * heads split over reads, Content-Length and chunked bodies, keep-alive reuse, `Connection: close`, an answer
 * that comes before the request body is all sent, and a server that hangs up mid-body or goes silent.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { RawHttp } from '../../bench/raw-http.js';

/** What the server does with each request, by path. */
type Script = (sock: net.Socket, head: string) => Promise<void> | void;
const scripts = new Map<string, Script>();
let server: net.Server;
let origin: string;
let connections = 0;

before(async () => {
  server = net.createServer((sock) => {
    connections++;
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length && !head.includes('/early')) return;
        buf = head.includes('/early') ? '' : buf.slice(end + 4 + length);
        const path = head.split(' ')[1]!;
        void scripts.get(path)!(sock, head);
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

after(() => { server.close(); });

test('a head split byte by byte, then a Content-Length body; the connection is reused', async () => {
  scripts.set('/split', async (sock) => {
    for (const ch of 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n') { sock.write(ch); await sleep(1); }
    sock.write('hello');
  });
  const http = new RawHttp(origin);
  const before = connections;
  try {
    const a = await http.request('GET', '/split', { host: 'x' }, undefined, true);
    assert.deepEqual({ status: a.status, bytes: a.bytes, body: a.body.toString() }, { status: 200, bytes: 5, body: 'hello' });
    const b = await http.request('GET', '/split', { host: 'x' });
    assert.deepEqual({ status: b.status, bytes: b.bytes, kept: b.body.length }, { status: 200, bytes: 5, kept: 0 });
    assert.equal(connections - before, 1, 'one keep-alive connection served both');
  } finally {
    http.destroy();
  }
});

test('a chunked body with extensions and a trailer is counted exactly', async () => {
  scripts.set('/chunked', (sock) => {
    sock.write('HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nNoSu\r\n');
    sock.write('6\r\nchKey!\r\n0\r\nx-trailer: 1\r\n\r\n');
  });
  const http = new RawHttp(origin);
  try {
    const r = await http.request('GET', '/chunked', { host: 'x' });
    // An error status keeps the body by default (the caller quotes it).
    assert.deepEqual({ status: r.status, bytes: r.bytes, body: r.body.toString() }, { status: 404, bytes: 10, body: 'NoSuchKey!' });
    const again = await http.request('GET', '/chunked', { host: 'x' });
    assert.equal(again.bytes, 10);
  } finally {
    http.destroy();
  }
});

test('Connection: close is honoured: the next request opens a new connection', async () => {
  scripts.set('/close', (sock) => { sock.end('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'); });
  const http = new RawHttp(origin);
  const before = connections;
  try {
    assert.equal((await http.request('GET', '/close', { host: 'x' })).bytes, 2);
    assert.equal((await http.request('GET', '/close', { host: 'x' })).bytes, 2);
    assert.equal(connections - before, 2);
  } finally {
    http.destroy();
  }
});

test('a connection idle past the Keep-Alive hint, or closed by the server while idle, is not reused', async () => {
  scripts.set('/hint', (sock) => { sock.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 1\r\n\r\nh'); });
  scripts.set('/idle-close', (sock) => {
    sock.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ni');
    setTimeout(() => sock.destroy(), 20);
  });
  const http = new RawHttp(origin);
  const before = connections;
  try {
    // timeout=1 leaves no margin: the connection is not reused once the response has been read.
    await http.request('GET', '/hint', { host: 'x' });
    await sleep(5);
    await http.request('GET', '/hint', { host: 'x' });
    assert.equal(connections - before, 2);
    await sleep(5);
    await http.request('GET', '/idle-close', { host: 'x' });
    assert.equal(connections - before, 3);
    await sleep(100);
    assert.equal((await http.request('GET', '/idle-close', { host: 'x' })).bytes, 1);
    assert.equal(connections - before, 4);
  } finally {
    http.destroy();
  }
});

test('a streamed request body, and an answer before the body is all sent', async () => {
  scripts.set('/echo-length', (sock, head) => {
    const n = /content-length: (\d+)/i.exec(head)![1]!;
    sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${n.length}\r\n\r\n${n}`);
  });
  scripts.set('/early', (sock) => { sock.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\ndenied'); });
  const http = new RawHttp(origin);
  try {
    const body = Readable.from(Array.from({ length: 8 }, () => Buffer.alloc(256 * 1024, 7)));
    const ok = await http.request('PUT', '/echo-length', { host: 'x', 'content-length': String(2 * 1024 * 1024) }, body, true);
    assert.equal(ok.body.toString(), String(2 * 1024 * 1024));
    const endless = new Readable({ read() { this.push(Buffer.alloc(64 * 1024)); } });
    const early = await http.request('PUT', '/early', { host: 'x', 'content-length': String(1 << 30) }, endless);
    assert.deepEqual({ status: early.status, body: early.body.toString() }, { status: 403, body: 'denied' });
  } finally {
    http.destroy();
  }
});

test('a server that hangs up mid-body, answers what is not HTTP, or goes silent rejects the request', async () => {
  scripts.set('/cut', (sock) => { sock.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some'); });
  scripts.set('/junk', (sock) => { sock.write('SSH-2.0-OpenSSH\r\n\r\n'); });
  scripts.set('/silent', (sock) => { sock.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'); });
  // The hang-up and the junk get a long idle timeout: on a loaded CI machine a stalled event loop runs the
  // expired timer before it reads the FIN, and the test would see the timeout instead of the hang-up.
  const http = new RawHttp(origin, { timeoutMs: 30_000 });
  const impatient = new RawHttp(origin, { timeoutMs: 300 });
  try {
    await assert.rejects(http.request('GET', '/cut', { host: 'x' }), /closed before the response ended/);
    await assert.rejects(http.request('GET', '/junk', { host: 'x' }), /not an HTTP\/1\.1 response/);
    await assert.rejects(impatient.request('GET', '/silent', { host: 'x' }), /no answer from 127\.0\.0\.1:\d+ for 300 ms/);
    assert.throws(() => new RawHttp('https://127.0.0.1:1'), /http:\/\/ only/);
  } finally {
    http.destroy();
    impatient.destroy();
  }
});
