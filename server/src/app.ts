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
import type { IdentityAuthority } from './iam/index.js';
import type { ObjectLayer } from './storage/index.js';

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
  /** The admin API under /svc/admin/v3/ (issue 5); absent: no admin API. */
  admin?: AdminPluginOptions;
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
  const app = Fastify({ ...COMMON_OPTIONS, loggerInstance: deps.logger, frameworkErrors: s3FrameworkErrors });
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
  });
  installS3ClientErrorHandler(app.server);
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
  const app = Fastify({ ...COMMON_OPTIONS, loggerInstance: deps.logger });
  recordRoutes(app);
  await app.register(consolePlugin, {
    version: deps.version,
    ...(deps.assetsDir !== undefined ? { assetsDir: deps.assetsDir } : {}),
    ...(deps.services !== undefined ? { services: deps.services } : {}),
  });
  return app;
}
