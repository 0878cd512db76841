/**
 * A real HTTP server on 127.0.0.1 answering admin API calls from fixtures, after verifying their AWS Signature
 * Version 4 with the server's own verifier — so the client's signing is proven, not assumed.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyRequest } from '../../src/auth/index.js';

/** One recorded call. */
export interface RecordedCall {
  method: string;
  path: string;
  query: string;
  body: string;
  accessKey: string;
}

/** A route answer: status and JSON body (undefined → empty). */
export type Answer = { status: number; body?: unknown };

/** A running stub. */
export interface StubAdminServer {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the stub; `secrets` maps access keys to secret keys, `route` answers verified calls. */
export async function startStubAdmin(secrets: Record<string, string>, route: (c: RecordedCall) => Answer): Promise<StubAdminServer> {
  const calls: RecordedCall[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const [rawPath = '', rawQuery = ''] = (req.url ?? '').split('?');
      const body = await readBody(req);
      let answer: Answer;
      try {
        const v = await verifyRequest({ method: req.method ?? 'GET', rawPath, rawQuery, headers: req.headers, rawHeaders: req.rawHeaders },
          async (k) => secrets[k], { now: new Date() });
        if ('anonymous' in v && v.anonymous) throw Object.assign(new Error('anonymous'), { code: 'AccessDenied' });
        const accessKey = (v as { accessKey: string }).accessKey;
        if (req.headers['x-amz-content-sha256'] !== createHash('sha256').update(body).digest('hex')) {
          throw Object.assign(new Error('body does not match x-amz-content-sha256'), { code: 'XAmzContentSHA256Mismatch' });
        }
        const call = { method: req.method ?? '', path: rawPath, query: rawQuery, body, accessKey };
        calls.push(call);
        answer = route(call);
      } catch (err) {
        const e = err as { s3Code?: string; code?: string };
        answer = { status: 403, body: { code: e.s3Code ?? e.code ?? 'SignatureDoesNotMatch', message: (err as Error).message } };
      }
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, text ? { 'content-type': 'application/json' } : {}).end(text);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise((r) => server.close(() => r())) };
}
