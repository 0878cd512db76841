/**
 * A real OpenID provider on loopback (npm oidc-provider, with its development login and consent pages) whose
 * accounts carry a `policy` claim, and a small reverse proxy that gives several console nodes one origin while
 * sending chosen paths to another node (the multi-node case of REFERENCE.md §3.2 point 3).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A started provider. */
export interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Starts the provider; every account it signs in gets `policy: policyOf(login)`. */
export async function startProvider(opts: { clientId: string; clientSecret: string; redirectUri: string; policyOf: (login: string) => string }): Promise<TestProvider> {
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: opts.clientId, client_secret: opts.clientSecret, redirect_uris: [opts.redirectUri],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
    }],
    claims: { openid: ['sub'], profile: ['preferred_username', 'policy'] },
    // The console reads the claims from the ID token.
    conformIdTokenClaims: false,
    cookies: { keys: ['svc-console-test-cookie-key'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, preferred_username: id, policy: opts.policyOf(id) }),
    }),
  });
  server.on('request', provider.callback());
  return {
    issuer,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A started proxy. */
export interface TestProxy {
  url: string;
  /** The target each request went to, in order (path → target URL). */
  log: { path: string; target: string }[];
  route: (pick: (path: string) => string | undefined) => void;
  close(): Promise<void>;
}

/** A reverse proxy on 127.0.0.1 (a trusted proxy address by default) that keeps Host and adds X-Forwarded-*. */
export async function startProxy(): Promise<TestProxy> {
  let pick: (path: string) => string | undefined = () => undefined;
  const log: { path: string; target: string }[] = [];
  const server = createServer((req, res) => {
    const target = pick(req.url ?? '/');
    if (target === undefined) {
      res.writeHead(502).end('no backend');
      return;
    }
    log.push({ path: req.url ?? '/', target });
    const t = new URL(target);
    const upstream = httpRequest({
      host: t.hostname, port: t.port, method: req.method, path: req.url,
      headers: { ...req.headers, 'x-forwarded-proto': 'http', 'x-forwarded-host': req.headers.host ?? '' },
    }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(upstream);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`, log,
    route: (p) => { pick = p; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
