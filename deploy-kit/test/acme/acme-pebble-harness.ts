/**
 * Debian's pebble on 127.0.0.1 for host-level ACME tests (DOCKER.md §3 option A): a mock DNS
 * (pebble-challtestsrv) answering 127.0.0.1 for every name, pebble validating HTTP-01 on `httpPort`, and a small
 * HTTP server there answering /.well-known/acme-challenge/<token> from a webroot folder — the acme-responder's job.
 * Pebble makes a new root at every start; {@link PebbleHarness.rootPem} fetches it from the management API.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { request } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSigned } from '../../src/certs/pem/index.js';

/** Pebble's own TLS listener certificate (it ships none, DOCKER.md §3). */
export interface ListenerCert {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

/** A running pebble. */
export interface PebbleHarness {
  readonly listener: ListenerCert;
  readonly directoryUrl: string;
  /** CA of pebble's own listener certificate (DEPLOY_KIT_ACME_CA_FILE). */
  readonly listenerCaPem: string;
  readonly listenerCaFile: string;
  /** How many times pebble validated a challenge through our responder. */
  challengeHits(): number;
  /** Pebble's current issuing root, PEM. */
  rootPem(): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => { resolve(typeof addr === 'object' && addr !== null ? addr.port : 0); });
    });
  });
}

function getText(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body }); });
    });
    req.on('timeout', () => { req.destroy(new Error('timeout')); });
    req.on('error', reject);
    req.end();
  });
}

function startChild(file: string, args: string[], env: NodeJS.ProcessEnv, log: string[]): ChildProcess {
  const child = spawn(file, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => { log.push(c.toString('utf8')); });
  child.stderr?.on('data', (c: Buffer) => { log.push(c.toString('utf8')); });
  child.on('error', (e) => { log.push(`spawn ${file}: ${e.message}`); });
  return child;
}

function responder(webroot: string, hits: { n: number }): Server {
  return createServer((req, res) => {
    const m = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    if (m === null) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(webroot, m[1] as string), 'utf8').then((body) => {
      hits.n++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
    }, () => { res.writeHead(404).end(); });
  });
}

/** Starts challtestsrv, pebble and the responder serving `webroot`; fails with pebble's log when it does not come up. */
export async function startPebble(webroot: string, reuse?: ListenerCert): Promise<PebbleHarness> {
  const work = await mkdtemp(join(tmpdir(), 'dk-pebble-'));
  const [acmePort, mgmtPort, httpPort, tlsPort, dnsPort, challMgmtPort] = await Promise.all(Array.from({ length: 6 }, freePort));
  const made = reuse === undefined ? generateSelfSigned({ hosts: ['localhost'], now: new Date(), days: 2 }) : undefined;
  const listener: ListenerCert = reuse ?? { certPem: made!.leafCertPem + made!.caCertPem, keyPem: made!.leafKeyPem, caPem: made!.caCertPem };
  const certFile = join(work, 'cert.pem');
  const keyFile = join(work, 'key.pem');
  const listenerCaFile = join(work, 'listener-ca.pem');
  await writeFile(certFile, listener.certPem);
  await writeFile(keyFile, listener.keyPem);
  await writeFile(listenerCaFile, listener.caPem);
  await writeFile(join(work, 'pebble-config.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`, managementListenAddress: `127.0.0.1:${mgmtPort}`,
      certificate: certFile, privateKey: keyFile, httpPort, tlsPort, ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));
  const hits = { n: 0 };
  const server = responder(webroot, hits);
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(httpPort, '127.0.0.1', resolve); });
  const log: string[] = [];
  const dns = startChild('pebble-challtestsrv', ['-dns01', `127.0.0.1:${dnsPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '',
    '-management', `127.0.0.1:${challMgmtPort}`, '-defaultIPv4', '127.0.0.1', '-defaultIPv6', ''], {}, log);
  // PEBBLE_VA_NOSLEEP: no random 0-15 s wait before each validation (DOCKER.md §3); validation itself stays real.
  const pebble = startChild('pebble', ['-config', join(work, 'pebble-config.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
    { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' }, log);
  const stop = async (): Promise<void> => {
    for (const c of [pebble, dns]) if (c.exitCode === null && c.pid !== undefined) c.kill('SIGTERM');
    await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
    await rm(work, { recursive: true, force: true });
  };
  const directoryUrl = `https://localhost:${acmePort}/dir`;
  for (let i = 0; ; i++) {
    try {
      if ((await getText(directoryUrl, listener.caPem)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i >= 100 || pebble.exitCode !== null) {
      await stop();
      throw new Error(`pebble did not start:\n${log.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    listener,
    directoryUrl,
    listenerCaPem: listener.caPem,
    listenerCaFile,
    challengeHits: () => hits.n,
    async rootPem() {
      const r = await getText(`https://localhost:${mgmtPort}/roots/0`, listener.caPem);
      if (r.status !== 200) throw new Error(`pebble /roots/0 answered ${r.status}`);
      return r.body;
    },
    stop,
  };
}
