/**
 * buildApp: registers the HTTP surfaces on their listeners (STYLE.md convention 6). It constructs nothing
 * concrete: storage, credentials and probe sources come in from main.ts, the composition root.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { LookupSecret } from './auth/index.js';
import { peerPlugin, rpcPlugin, type PeerPluginOptions, type RpcPluginOptions } from './cluster/index.js';
import { adminPlugin, type AdminPluginOptions } from './http/admin/index.js';
import { consolePlugin, type ConsoleServices } from './http/console/index.js';
import { healthPlugin, type HealthSources } from './http/health/index.js';
import { installS3ClientErrorHandler, s3FrameworkErrors, s3Plugin } from './http/s3/index.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/shared/index.js';
import type { IdentityAuthority } from './iam/index.js';
import type { ObjectLayer } from './storage/index.js';
import type { LocalKms } from './crypto/index.js';

/** Everything the :9000 listener serves from. */
export interface ApiDeps {
  logger: FastifyBaseLogger;
  objectLayer: ObjectLayer;
  lookupSecret: LookupSecret;
  /** Authorizes signed requests of users and service accounts (the IAM store). */
  identities?: IdentityAuthority;
  region: string;
  domains: readonly string[];
  healthEnabled: boolean;
  healthSources: HealthSources;
  /** Node-URL mode: the internal RPC and peer routes on the same port (SPEC §1 rule 2). */
  cluster?: ClusterRoutes;
  /** The local KMS of SSE-S3 (SVC_KMS_SECRET_KEY); absent → SSE-S3 is refused. */
  kms?: LocalKms;
  /** SVC_SSE_C_ALLOW_HTTP: SSE-C over plain HTTP from any peer. */
  sseCOverHttp?: boolean;
  /** The admin API under /svc/admin/v3/ (issue 5); absent: no admin API. */
  admin?: AdminPluginOptions;
  /** Connection limits (header size, header timeout, idle timeout); DEFAULT_HTTP_LIMITS for what is not given. */
  limits?: Partial<HttpLimits>;
}

/** The internal routes of a cluster node, all authenticated with the node token. */
export interface ClusterRoutes {
  rpc: RpcPluginOptions;
  peer: PeerPluginOptions;
  /** More peer plugins (e.g. the distributed lock's /svc/peer/lock/*), registered as they are. */
  plugins?: readonly FastifyPluginAsync[];
}

// Object bodies stream and have no size limit here; S3 itself caps a single PUT at 5 GiB.
const COMMON_OPTIONS = {
  // Per-request logs cost more than a small GET; errors are still logged by the handlers.
  logController: new LogController({ disableRequestLogging: true }),
  return503OnClosing: true,
  // S3 keys may contain '//' and '..'; the S3 plugin reads the raw URL, so the router must not rewrite it.
  routerOptions: { ignoreDuplicateSlashes: false, ignoreTrailingSlash: false, maxParamLength: 4096 },
  requestTimeout: 0,
  keepAliveTimeout: 65_000,
} as const;

/**
 * Fastify/Node options for `limits`. The header timeout is what stops slowloris clients: the whole header
 * section must arrive within it, however slowly it trickles (requestTimeout stays 0 so that long uploads live).
 */
function limitOptions(limits: HttpLimits): {
  http: { maxHeaderSize: number; connectionsCheckingInterval: number }; connectionTimeout: number;
} {
  return {
    http: { maxHeaderSize: limits.maxHeaderBytes, connectionsCheckingInterval: limits.connectionsCheckIntervalMs },
    connectionTimeout: limits.idleTimeoutMs,
  };
}

/** One registered route: a method and the URL pattern (`:param`, `*`). */
export interface RouteEntry {
  method: string;
  url: string;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Records every route `app` (and its plugins) register, for the unauthenticated route walk of the tests. */
function recordRoutes(app: FastifyInstance): void {
  const list: RouteEntry[] = [];
  tables.set(app, list);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) list.push({ method, url: route.url });
  });
}

/** The routes an app built here registered (empty for any other instance). */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}

/** The S3 API + admin + probes listener (:9000). */
export async function buildApiApp(deps: ApiDeps): Promise<FastifyInstance> {
  // frameworkErrors: a URL fastify cannot decode still gets S3's InvalidURI XML, not fastify's JSON 400.
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...deps.limits };
  const app = Fastify({ ...COMMON_OPTIONS, ...limitOptions(limits), loggerInstance: deps.logger, frameworkErrors: s3FrameworkErrors });
  app.server.headersTimeout = limits.headersTimeoutMs;
  recordRoutes(app);
  // Probes first and outside the S3 auth scope: they need no authentication (SPEC §4).
  await app.register(healthPlugin, { enabled: deps.healthEnabled, sources: deps.healthSources });
  if (deps.cluster) {
    // Before the S3 plugin: these prefixes are more specific than its catch-all and carry their own auth.
    await app.register(rpcPlugin, deps.cluster.rpc);
    await app.register(peerPlugin, deps.cluster.peer);
    for (const plugin of deps.cluster.plugins ?? []) await app.register(plugin);
  }
  // Before the S3 plugin too: its prefix is more specific than the S3 catch-all, and it answers JSON.
  if (deps.admin) await app.register(adminPlugin, deps.admin);
  await app.register(s3Plugin, {
    objectLayer: deps.objectLayer, lookupSecret: deps.lookupSecret, region: deps.region, domains: deps.domains,
    ...(deps.identities !== undefined ? { identities: deps.identities } : {}),
    ...(deps.kms !== undefined ? { kms: deps.kms } : {}),
    ...(deps.sseCOverHttp === true ? { allowSseCOverHttp: true } : {}),
  });
  installS3ClientErrorHandler(app.server, { maxHeaderBytes: limits.maxHeaderBytes });
  return app;
}

/** Everything the :9001 listener serves from. */
export interface ConsoleDeps {
  logger: FastifyBaseLogger;
  version: string;
  /** The built front end (server/dist/console). */
  assetsDir?: string;
  /** The console API's services (issue 6); absent: health, redirect and page only. */
  services?: ConsoleServices;
}

/** The console listener (:9001). */
export async function buildConsoleApp(deps: ConsoleDeps): Promise<FastifyInstance> {
  // The console's WebSocket may sit idle between status updates: header limits only, no idle timeout.
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, idleTimeoutMs: 0 };
  const app = Fastify({ ...COMMON_OPTIONS, ...limitOptions(limits), loggerInstance: deps.logger });
  app.server.headersTimeout = limits.headersTimeoutMs;
  recordRoutes(app);
  await app.register(consolePlugin, {
    version: deps.version,
    ...(deps.assetsDir !== undefined ? { assetsDir: deps.assetsDir } : {}),
    ...(deps.services !== undefined ? { services: deps.services } : {}),
  });
  return app;
}
