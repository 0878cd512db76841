/**
 * Composition root (STYLE.md convention 5): config → credentials → storage → apps → listen.
 * The only module that constructs concrete classes and reads process state (env, argv, signals).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import pino, { type Logger } from 'pino';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { buildApiApp, buildConsoleApp, routeTable, type ClusterRoutes, type RouteEntry } from './app.js';
import {
  BUCKET_CHANGED_PATH, IamReloadNotifier, PeerMonitor, PeerNotifier, RemoteDrive, RpcClient, ServerReports, bucketChangedPlugin,
  collectServerReport, createClusterLocking, drivePlacesOf, iamReloadPlugin,
  credentialsFingerprint, endpointsFingerprint, losesQuorumWithoutSelf, parseTopology, peerNetwork, serverInfoPlugin,
  waitForFormatQuorum, waitForPeers, type NodeIdentity, type ServerReport, type Topology,
} from './cluster/index.js';
import { ConfigError, ConfigErrors, loadConfig, type ListenAddress, type ServerConfig } from './config/index.js';
import { assembleInfoReport, countContents, type InfoReport } from './http/admin/index.js';
import { consoleSettingsFromEnv, type ConsoleEnvSettings, type ConsoleServices } from './http/console/index.js';
import { S3Error, encryptingObjectView, plainObjectSize } from './http/s3/index.js';
import type { HealthSources } from './http/health/index.js';
import { IamStore, loadOrCreateRootCredentials, objectLayerPersistence } from './iam/index.js';
import {
  BucketRecordCache, LifecycleService, LocalDrive, openPools, openStorage, setKeyIndexForNewDrives, stopSyncShells, type Drive, type ObjectLayer,
  type Storage,
} from './storage/index.js';
import { VERSION } from './common/index.js';
import { parseKmsSecretKey, type LocalKms } from './crypto/index.js';

/** Exit codes of `svc` (documented in README): 0 ok, 1 runtime failure, 2 usage or invalid configuration. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** The local KMS of SSE-S3 when SVC_KMS_SECRET_KEY is set (its form was checked by loadConfig). */
function kmsOf(config: ServerConfig): LocalKms | undefined {
  return config.kmsSecretKey === undefined ? undefined : parseKmsSecretKey(config.kmsSecretKey);
}

/** The S3 plugin's encryption settings. */
function sseDeps(config: ServerConfig, kms: LocalKms | undefined): { kms?: LocalKms; sseCOverHttp?: boolean } {
  return { ...(kms !== undefined ? { kms } : {}), ...(config.sseCOverHttp === true ? { sseCOverHttp: true } : {}) };
}

/** Probe sources with the KMS, so readiness `details` gains `kms` when one is configured (SPEC §2). */
function withKms(sources: HealthSources, kms: LocalKms | undefined): HealthSources {
  return kms === undefined ? sources : { ...sources, kms: () => kms.status() };
}

/** A running server. */
export interface RunningServer {
  apiUrl: string;
  consoleUrl: string | undefined;
  /** Every route of the two listeners (the security tests walk them without credentials). */
  routes(): { api: readonly RouteEntry[]; console: readonly RouteEntry[] };
  close(): Promise<void>;
}

function routesOf(api: FastifyInstance, consoleApp: FastifyInstance | undefined): ReturnType<RunningServer['routes']> {
  return { api: routeTable(api), console: consoleApp === undefined ? [] : routeTable(consoleApp) };
}

function makeLogger(config: ServerConfig): Logger {
  if (!config.logDirectory) return pino({ level: config.logLevel, base: { service: 'svc' } });
  mkdirSync(config.logDirectory, { recursive: true });
  const streams = pino.multistream([
    { level: config.logLevel, stream: process.stdout },
    { level: config.logLevel, stream: pino.destination({ dest: join(config.logDirectory, 'svc.log'), mkdir: true, sync: false }) },
  ]);
  return pino({ level: config.logLevel, base: { service: 'svc' } }, streams);
}

function urlOf(app: FastifyInstance, fallback: ListenAddress): string {
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : fallback.port;
  const host = fallback.host === '' || fallback.host === '0.0.0.0' || fallback.host === '::' ? '127.0.0.1' : fallback.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * This node's identity for matching its own endpoints: the bind address when one is given, else the host name and
 * every interface address; SVC_HOSTNAME adds the name the endpoint list uses for this node.
 */
function nodeIdentity(config: ServerConfig): NodeIdentity {
  const hosts = new Set<string>();
  const bind = config.address.host;
  if (bind === '' || bind === '0.0.0.0' || bind === '::') {
    hosts.add(hostname());
    hosts.add('localhost');
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) hosts.add(a.address);
  } else {
    hosts.add(bind);
  }
  if (config.hostname) hosts.add(config.hostname);
  return { port: config.address.port, hosts: [...hosts] };
}

/**
 * The ObjectLayer handed to the S3 routes of a cluster node, which listens before its storage is open (peers read
 * its drives during their own start): until then every S3 call answers 503 ServiceUnavailable.
 */
function startingObjectLayer(current: () => ObjectLayer | undefined): ObjectLayer {
  return new Proxy({} as ObjectLayer, {
    get(_target, prop) {
      const layer = current();
      if (layer === undefined) {
        if (prop === 'then') return undefined;
        return async () => {
          throw new S3Error('ServiceUnavailable', { message: 'This node is starting: it waits for its peers and for format quorum of the drives. Retry shortly.' });
        };
      }
      const value: unknown = Reflect.get(layer, prop, layer);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(layer) : value;
    },
  });
}

function banner(print: (line: string) => void, apiUrl: string, consoleUrl: string | undefined, drives: string): void {
  print(`svc ${VERSION}`);
  print(`S3 API:  ${apiUrl}`);
  print(`Console: ${consoleUrl ? `${consoleUrl}/svc/console/` : 'disabled (SVC_CONSOLE_ENABLE=false)'}`);
  print(`Drives:  ${drives}`);
}

/** The built console front end, server/dist/console: seen from dist/src/main.js (built) or src/main.ts (tsx). */
const CONSOLE_ASSETS = fileURLToPath(new URL(import.meta.url.includes('/dist/src/') ? '../console/' : '../dist/console/', import.meta.url));

/** The console's settings from the environment; a bad value is a configuration error (exit code 2). */
function consoleSettings(config: ServerConfig): ConsoleEnvSettings {
  if (!config.consoleEnabled) return {};
  try {
    return consoleSettingsFromEnv(process.env);
  } catch (err) {
    throw new ConfigError((err as Error).message, 'see docs/console.md for the console settings');
  }
}

/** The cluster information report, exactly as `GET /svc/admin/v3/info` builds it (docs/admin-api.md). */
async function infoReport(storage: Storage, servers: () => Promise<ServerReport[]>, region: string): Promise<InfoReport> {
  const [list, counts] = await Promise.all([servers(), countContents(storage)]);
  return assembleInfoReport({
    serverVersion: VERSION, deploymentId: storage.deploymentId, region, pools: storage.poolLayouts(),
    servers: list, buckets: counts.buckets, objects: counts.objects,
  });
}

type ConsoleSource = Omit<ConsoleServices, 'trustedProxies' | 'sessionTtlSeconds' | 'oidc' | 'browserRedirectUrl' | 's3Url'> & { apiUrl: string };

async function listenConsole(config: ServerConfig, settings: ConsoleEnvSettings, logger: Logger, source: ConsoleSource): Promise<FastifyInstance | undefined> {
  if (!config.consoleEnabled) return undefined;
  const { apiUrl, ...rest } = source;
  const services: ConsoleServices = {
    ...rest,
    s3Url: () => settings.serverUrl ?? apiUrl,
    ...(settings.trustedProxies !== undefined ? { trustedProxies: settings.trustedProxies } : {}),
    ...(settings.sessionTtlSeconds !== undefined ? { sessionTtlSeconds: settings.sessionTtlSeconds } : {}),
    ...(settings.oidc !== undefined ? { oidc: settings.oidc } : {}),
    ...(settings.browserRedirectUrl !== undefined ? { browserRedirectUrl: settings.browserRedirectUrl } : {}),
  };
  const app = await buildConsoleApp({ logger, version: VERSION, assetsDir: CONSOLE_ASSETS, services });
  await app.listen({ host: config.consoleAddress.host || '::', port: config.consoleAddress.port });
  return app;
}

/**
 * Node-URL mode (issue 4): listen with the RPC and peer routes first, then wait for the peers (refusing a
 * different drive list or credentials), then for format quorum (the first node formats a fresh deployment), then
 * open the storage over this node's local drives and the peers' remote ones.
 */
async function startClusterNode(config: ServerConfig, print: (line: string) => void, logger: Logger): Promise<RunningServer> {
  const credentials = config.credentials;
  if (credentials === undefined) throw new ConfigError('node URLs need SVC_ACCESS_KEY and SVC_SECRET_KEY', 'set the same root credentials on every node');
  const consoleEnv = consoleSettings(config);
  const topology: Topology = parseTopology(config.endpoints ?? [], nodeIdentity(config), config.storageClass ? { parity: config.storageClass } : {});
  const local = topology.endpoints.filter((e) => e.isLocal);
  // As in path mode: directories are created only on a fresh node, never for a single missing mount point.
  if (local.every((e) => !existsSync(e.path))) for (const e of local) mkdirSync(e.path, { recursive: true });
  const localDrives = new Map(local.map((e) => [e.path, new LocalDrive(e.path)]));
  const clients = new Map(topology.peers.map((node) => [node, new RpcClient({ origin: `http://${node}`, credentials })]));
  const pools = topology.pools.map((pool) => ({
    sets: pool.sets.map((set) => set.map((e) => e.id)),
    parity: pool.parity,
    drives: pool.sets.map((set) => set.map((e): Drive => e.isLocal
      ? localDrives.get(e.path)!
      : new RemoteDrive({ client: clients.get(e.node)!, path: e.path, endpoint: e.id }))),
  }));
  const peers = new PeerMonitor({ topology, credentials });
  // dsync-style namespace lock (REFERENCE.md fact 8): one lock server per node, every node a locker.
  const locking = createClusterLocking({
    self: topology.self, peers: topology.peers.map((id) => ({ id, client: clients.get(id)! })), credentials,
    onLockLost: (resource, mode, err) => logger.warn(`${mode} lock on ${resource} lost: ${err.message}`),
  });
  let storage: Storage | undefined;
  // IAM in the system bucket (issue 4): loaded once storage is open, changes announced to every peer.
  const iamNotifier = new IamReloadNotifier({
    peers: topology.peers, credentials, onFailure: (node, why) => logger.warn(`IAM reload not confirmed by ${node}: ${why}`),
  });
  const iam = new IamStore({
    root: credentials, persistence: objectLayerPersistence(() => storage), logger,
    notify: async (changes) => { await iamNotifier.notify(changes); },
  });
  const iamReload: FastifyPluginAsync = async (app) => {
    await app.register(iamReloadPlugin, { credentials, reload: (items) => iam.reload(items) });
  };
  // Bucket records cached on every node; a change is announced to the peers before it is answered (issue 9).
  const bucketNotifier = new PeerNotifier({
    peers: topology.peers, credentials, onFailure: (node, why) => logger.warn(`bucket change not confirmed by ${node}: ${why}`),
  });
  const bucketRecords = new BucketRecordCache(true, async (bucket) => { await bucketNotifier.post(BUCKET_CHANGED_PATH, { bucket }); });
  const bucketChanged: FastifyPluginAsync = async (app) => {
    await app.register(bucketChangedPlugin, { credentials, forget: (bucket) => bucketRecords.forget(bucket) });
  };
  const kms = kmsOf(config);
  const startedAt = new Date();
  // The cluster information report (issue 5): this node's part, served to peers, and every node's, for the admin API.
  const localReport = () => collectServerReport({
    endpoint: topology.self, version: VERSION, startedAt, drives: drivePlacesOf(topology, topology.self),
    slots: () => storage?.driveSlots(), network: () => peerNetwork(topology, peers),
  });
  const serverInfo: FastifyPluginAsync = async (app) => {
    await app.register(serverInfoPlugin, { credentials, report: localReport });
  };
  const reports = new ServerReports({ topology, credentials, local: localReport });
  const healthSources: HealthSources = {
    storage: () => storage ? storage.health() : Promise.reject(new Error('storage is not open yet')),
    iamReady: () => iam.ready(),
    // The peer round keeps `maintenanceLosesQuorum` (read right after) as fresh as the lock answer.
    lockReady: async () => (await Promise.all([locking.lockReady(), peers.refresh()]))[0],
    readyNeedsLock: true,
    version: VERSION,
    startedAt,
    maintenanceLosesQuorum: () => losesQuorumWithoutSelf(topology, (node) => peers.reachable().has(node)),
  };
  const cluster: ClusterRoutes = {
    rpc: { credentials, drives: localDrives },
    plugins: [locking.plugin, iamReload, serverInfo, bucketChanged],
    peer: {
      credentials,
      info: () => ({
        node: topology.self, deploymentId: storage?.deploymentId ?? '', endpoints: endpointsFingerprint(topology),
        drives: topology.endpoints.length, credentials: credentialsFingerprint(credentials), version: VERSION,
      }),
    },
  };
  const api = await buildApiApp({
    logger, objectLayer: startingObjectLayer(() => storage), lookupSecret: (ak) => iam.lookupSecret(ak), identities: iam,
    region: config.region, domains: config.domains,
    healthEnabled: config.healthEndpointsEnabled, healthSources: withKms(healthSources, kms), cluster, ...sseDeps(config, kms),
    admin: { lookupSecret: (ak) => iam.lookupSecret(ak), iam, storage: () => storage, servers: () => reports.all(), region: config.region, version: VERSION },
  });
  let consoleApp: FastifyInstance | undefined;
  let lifecycle: LifecycleService | undefined;
  const close = async (): Promise<void> => {
    peers.stop();
    await lifecycle?.stop();
    iam.close();
    await Promise.allSettled([api.close(), consoleApp?.close()]);
    await storage?.close();
    await stopSyncShells();
    await locking.close();
    await Promise.allSettled([...clients.values()].map((c) => c.close()));
    logger.flush?.();
  };
  try {
    await api.listen({ host: config.address.host || '::', port: config.address.port });
    print(`Node ${topology.self} of ${topology.nodes.length}: waiting for peers ${topology.peers.join(', ')}`);
    await waitForPeers({ topology, credentials, onWait: (missing) => print(`Waiting for ${missing.length} peer(s): ${missing.join(', ')}`) });
    let rounds = 0;
    await waitForFormatQuorum({
      pools: pools.map((p) => p.drives.flat()), formatter: topology.nodes[0] === topology.self, timeoutMs: 120_000,
      onWait: (s) => { if (++rounds % 5 === 0) print(`Waiting for format quorum: ${s.formatted} formatted, ${s.unformatted} empty, ${s.unreachable} unreachable`); },
    });
    // Peers write into this node's temp areas: only leftovers older than an hour are cleaned at start.
    storage = await openPools({ pools, logger, tempGraceMs: 3_600_000, locker: locking.locker, bucketRecords });
    // One node runs the lifecycle pass: two nodes expiring the same key would each add a delete marker.
    if (topology.nodes[0] === topology.self) lifecycle = startLifecycle(storage, logger);
    await iam.start();
    const opened = storage;
    consoleApp = await listenConsole(config, consoleEnv, logger, {
      // The console reads and writes objects as S3 clients see them (decrypted, bucket default encryption applied).
      root: credentials, iam, objectLayer: encryptingObjectView(opened, kms), region: config.region, apiUrl: urlOf(api, config.address),
      info: () => infoReport(opened, () => reports.all(), config.region),
    });
  } catch (err) {
    await close();
    throw err;
  }
  const layout = topology.pools.map((pool, i) => {
    const n = pool.setDriveCount;
    return `${topology.pools.length > 1 ? `pool ${i + 1}: ` : ''}${pool.sets.length} erasure set(s) of ${n}, EC:${pool.parity} (${n - pool.parity} data + ${pool.parity} parity per object)`;
  }).join('; ');
  banner(print, urlOf(api, config.address), consoleApp ? urlOf(consoleApp, config.consoleAddress) : undefined,
    `${topology.endpoints.length} on ${topology.nodes.length} nodes (${local.length} here) in ${layout}`);
  return {
    apiUrl: urlOf(api, config.address), consoleUrl: consoleApp ? urlOf(consoleApp, config.consoleAddress) : undefined,
    routes: () => routesOf(api, consoleApp), close,
  };
}

/** Time between two lifecycle passes (bucket lifecycle rules act at day granularity). */
const LIFECYCLE_INTERVAL_MS = 3_600_000;

/** Starts the background lifecycle pass over `layer` (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lifecycle-mgmt.html). */
function startLifecycle(layer: ObjectLayer, logger: Logger): LifecycleService {
  const service = new LifecycleService(layer, {
    intervalMs: LIFECYCLE_INTERVAL_MS,
    // Size filters compare what clients see: the plaintext size of encrypted objects.
    objectSize: plainObjectSize,
    onError: (what, err) => logger.warn(`lifecycle: ${what}: ${err instanceof Error ? err.message : String(err)}`),
  });
  service.start();
  return service;
}

/** Starts storage and both listeners from a loaded config; `print` receives the human banner lines. */
export async function startServer(config: ServerConfig, print: (line: string) => void): Promise<RunningServer> {
  const logger = makeLogger(config);
  setKeyIndexForNewDrives(config.keyIndex);
  if (config.endpoints !== undefined) return startClusterNode(config, print, logger);
  const consoleEnv = consoleSettings(config);
  const { credentials, generated, file } = await loadOrCreateRootCredentials(config.credentials, config.configDir);
  // A fresh deployment (no drive directory exists yet, as with `npm start`) gets its directories created. If only
  // some are missing they are left alone: a missing mount point must not silently become a directory on the root disk.
  const drives = config.sets.flat();
  if (drives.every((d) => !existsSync(d))) for (const d of drives) mkdirSync(d, { recursive: true });
  const storage = await openStorage({ sets: config.sets, parity: config.parity, logger });
  const iam = new IamStore({ root: credentials, persistence: objectLayerPersistence(storage), logger });
  await iam.start();
  const kms = kmsOf(config);
  const lifecycle = startLifecycle(storage, logger);
  const startedAt = new Date();
  let listenAt = '';
  // Path mode: one server, its listen address as endpoint, every drive its own (docs/admin-api.md).
  const places = config.sets.flatMap((set, s) => set.map((path, index) => ({ endpoint: path, path, pool: 0, set: s, index })));
  const localReport = () => collectServerReport({
    endpoint: listenAt, version: VERSION, startedAt, drives: places, slots: () => storage.driveSlots(), network: async () => ({}),
  });
  const api = await buildApiApp({
    logger, objectLayer: storage, lookupSecret: (ak) => iam.lookupSecret(ak), identities: iam, region: config.region, domains: config.domains,
    healthEnabled: config.healthEndpointsEnabled, ...sseDeps(config, kms),
    healthSources: withKms({
      storage: () => storage.health(),
      iamReady: () => iam.ready(),
      // Single node: the namespace lock is in-process and always has quorum.
      lockReady: async () => true,
      version: VERSION,
      startedAt,
      maintenanceLosesQuorum: () => true,
    }, kms),
    admin: {
      lookupSecret: (ak) => iam.lookupSecret(ak), iam, storage: () => storage, servers: async () => [await localReport()],
      region: config.region, version: VERSION,
    },
  });
  await api.listen({ host: config.address.host || '::', port: config.address.port });
  listenAt = urlOf(api, config.address).replace(/^http:\/\//, '');
  const apiUrl = urlOf(api, config.address);
  const consoleApp = await listenConsole(config, consoleEnv, logger, {
    root: credentials, iam, objectLayer: encryptingObjectView(storage, kms), region: config.region, apiUrl,
    info: () => infoReport(storage, async () => [await localReport()], config.region),
  });
  const consoleUrl = consoleApp ? urlOf(consoleApp, config.consoleAddress) : undefined;
  const k = (config.sets[0]?.length ?? 1) - config.parity;
  print(`svc ${VERSION}`);
  print(`S3 API:  ${apiUrl}`);
  print(`Console: ${consoleUrl ? `${consoleUrl}/svc/console/` : 'disabled (SVC_CONSOLE_ENABLE=false)'}`);
  print(`Drives:  ${drives.length} in ${config.sets.length} erasure set(s) of ${config.sets[0]?.length ?? 1}, EC:${config.parity} (${k} data + ${config.parity} parity per object)`);
  if (generated) {
    print(`Root credentials generated and stored in ${file} (mode 600); they are shown only this once:`);
    print(`  Access key: ${credentials.accessKey}`);
    print(`  Secret key: ${credentials.secretKey}`);
  } else if (file) {
    print(`Root credentials: ${file}`);
  }
  return {
    apiUrl,
    consoleUrl,
    routes: () => routesOf(api, consoleApp),
    async close() {
      iam.close();
      await lifecycle.stop();
      await Promise.allSettled([api.close(), consoleApp?.close()]);
      await storage.close();
      await stopSyncShells();
      logger.flush?.();
    },
  };
}

function serverCommand(run: (flags: { address?: string; consoleAddress?: string }, drives: string[]) => Promise<void>): Command {
  return new Command('server')
    .description('Start an object storage server on the given drives')
    .usage('[options] DRIVES...')
    .option('--address <addr>', 'S3 API listen address, :<port> or <host>:<port> (env SVC_ADDRESS)')
    .option('--console-address <addr>', 'console listen address (env SVC_CONSOLE_ADDRESS)')
    .argument('<drives...>', 'drive paths; MinIO ellipsis allowed, e.g. /data{1...4}')
    .addHelpText('after', `
Environment:
  SVC_ADDRESS, SVC_CONSOLE_ADDRESS    listen addresses (flags win)
  SVC_CONSOLE_ENABLE=false            no console listener
  SVC_HEALTH_ENDPOINT_ENABLE=false    no probe endpoints (404)
  SVC_ACCESS_KEY, SVC_SECRET_KEY      root credentials (also *_FILE; MINIO_ROOT_USER/PASSWORD)
  SVC_STORAGE_CLASS_STANDARD=EC:N     parity per erasure set (0..N/2)
  SVC_DOMAIN=a.com,b.com              virtual-host style: bucket.a.com → bucket (path style always works)
  SVC_KMS_SECRET_KEY=name:<base64>    local KMS (32-byte key) for SSE-S3 and bucket default encryption
  SVC_SSE_C_ALLOW_HTTP=true           accept SSE-C keys over plain HTTP from any peer (default: HTTPS or loopback)
  SVC_KEY_INDEX=false                 new drives get a metadata file per key instead of the key index
  SVC_OBS_LOGGER_LEVEL, SVC_OBS_LOG_DIRECTORY, SVC_CONFIG_DIR, SVC_REGION

Exit codes: 0 ok, 1 runtime failure, 2 usage or invalid configuration.
Example: svc server --console-address :9001 /data{1...4}`)
    .action(async (drives: string[], flags: { address?: string; consoleAddress?: string }) => run(flags, drives));
}

/** `svc` entry: parses argv, starts the server, stops it on SIGINT/SIGTERM. Returns the exit code. */
export async function runSvc(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('svc')
    .description('svc: an erasure-coded, S3-compatible object store')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.addCommand(serverCommand(async (flags, drives) => {
    const config = loadConfig({ ...flags, drives }, process.env, process.cwd());
    const server = await startServer(config, (line) => process.stdout.write(`${line}\n`));
    await new Promise<void>((resolve) => {
      const stop = () => { void server.close().finally(resolve); };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }).exitOverride());
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else if (err instanceof ConfigErrors) {
      for (const p of err.problems) process.stderr.write(`svc: ${p.message} (${p.hint})\n`);
      exitCode = EXIT.usage;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`svc: ${err.message} (${err.hint})\n`);
      exitCode = EXIT.usage;
    } else {
      const e = err as Error & { hint?: string };
      process.stderr.write(`svc: ${e.message}${e.hint ? ` (${e.hint})` : ''}\n`);
      exitCode = EXIT.failure;
    }
  }
  return exitCode;
}
