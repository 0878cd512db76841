// Rendered by deploy-kit: serves ACME HTTP-01 tokens (RFC 8555 §8.3) that deploy-kit writes to
// "/srv/acme-challenges"; HAProxy routes /.well-known/acme-challenge/ on port 80 here (SPEC rule 12).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const prefix = "/.well-known/acme-challenge/";
const webroot = "/srv/acme-challenges";
const server = createServer(async (req, res) => {
  const path = (req.url ?? '').split('?')[0];
  const token = path.startsWith(prefix) ? path.slice(prefix.length) : '';
  if (req.method !== 'GET' || !/^[A-Za-z0-9_-]+$/.test(token)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    return;
  }
  try {
    const body = await readFile(join(webroot, token));
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  }
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(8080);
