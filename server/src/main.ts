/**
 * Composition root (STYLE.md convention 5): config → credentials → storage → apps → listen.
 * The only module that constructs concrete classes and reads process state (env, argv, signals).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApiApp, buildConsoleApp } from './app.js';
import { ConfigError, ConfigErrors, loadConfig, type ListenAddress, type ServerConfig } from './config/index.js';
import { loadOrCreateRootCredentials } from './iam/index.js';
import { openStorage } from './storage/index.js';
import { VERSION } from './common/index.js';

/** Exit codes of `svc` (documented in README): 0 ok, 1 runtime failure, 2 usage or invalid configuration. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A running server. */
export interface RunningServer {
  apiUrl: string;
  consoleUrl: string | undefined;
  close(): Promise<void>;
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

/** Starts storage and both listeners from a loaded config; `print` receives the human banner lines. */
export async function startServer(config: ServerConfig, print: (line: string) => void): Promise<RunningServer> {
  const logger = makeLogger(config);
  const { credentials, generated, file } = await loadOrCreateRootCredentials(config.credentials, config.configDir);
  // A fresh deployment (no drive directory exists yet, as with `npm start`) gets its directories created. If only
  // some are missing they are left alone: a missing mount point must not silently become a directory on the root disk.
  const drives = config.sets.flat();
  if (drives.every((d) => !existsSync(d))) for (const d of drives) mkdirSync(d, { recursive: true });
  const storage = await openStorage({ sets: config.sets, parity: config.parity, logger });
  const lookupSecret = async (accessKey: string) => accessKey === credentials.accessKey ? credentials.secretKey : undefined;
  const startedAt = new Date();
  const api = await buildApiApp({
    logger, objectLayer: storage, lookupSecret, region: config.region, domains: config.domains,
    healthEnabled: config.healthEndpointsEnabled,
    healthSources: {
      storage: () => storage.health(),
      iamReady: () => true,
      // Single node: the namespace lock is in-process and always has quorum.
      lockReady: async () => true,
      version: VERSION,
      startedAt,
      maintenanceLosesQuorum: () => true,
    },
  });
  await api.listen({ host: config.address.host || '::', port: config.address.port });
  let consoleApp: FastifyInstance | undefined;
  if (config.consoleEnabled) {
    consoleApp = await buildConsoleApp({ logger, version: VERSION });
    await consoleApp.listen({ host: config.consoleAddress.host || '::', port: config.consoleAddress.port });
  }
  const apiUrl = urlOf(api, config.address);
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
    async close() {
      await Promise.allSettled([api.close(), consoleApp?.close()]);
      await storage.close();
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
