/**
 * Environment + flags → ServerConfig: read, parse, normalize, validate, freeze (STYLE.md convention 8).
 * Flags win over the environment (SPEC §2). Every problem is collected and reported together.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { expandEllipsis, hasEllipsis, parseRanges } from './ellipsis.js';
import { chooseSetSize, layoutPool } from './erasure-layout.js';
import { DEFAULTS, type ListenAddress, type ServerConfig } from './schema.js';

/** What the `svc server` command line gave. */
export interface ServerFlags {
  address?: string;
  consoleAddress?: string;
  drives: readonly string[];
}

/** Several problems at once; `message` lists them one per line. */
export class ConfigErrors extends ConfigError {
  readonly problems: readonly ConfigError[];
  constructor(problems: readonly ConfigError[]) {
    super(problems.map((p) => `${p.message} (${p.hint})`).join('\n'), problems[0]?.hint ?? '');
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Parses `:<port>` or `host:port` (IPv6 as `[::1]:9000`). Port 0 asks the OS for a free port. */
export function parseAddress(value: string, name: string): ListenAddress {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new ConfigError(`${name}="${value}" is not a valid listen address`, 'expected :<port> or <host>:<port>, e.g. :9000 or 127.0.0.1:9000');
  }
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

/**
 * SVC_KMS_SECRET_KEY (like MINIO_KMS_SECRET_KEY): `<key-name>:<base64 of 32 bytes>`, the local KMS master key of
 * SSE-S3. Only the form is checked here; the KMS itself is built by the composition root. The value is never echoed.
 */
export function checkKmsSecretKey(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const colon = value.indexOf(':');
  const name = value.slice(0, colon).trim();
  const b64 = value.slice(colon + 1).trim();
  const ok = colon > 0 && /^[A-Za-z0-9._-]{1,64}$/.test(name) && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && Buffer.from(b64, 'base64').length === 32;
  if (!ok) throw new ConfigError('SVC_KMS_SECRET_KEY is not a valid KMS key', 'expected <key-name>:<base64 of 32 bytes>, e.g. my-key:$(head -c 32 /dev/urandom | base64)');
  return value.trim();
}

/** Boolean settings accept true/false, on/off, yes/no, 1/0 (MinIO accepts on/off too). */
export function parseBool(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.trim().toLowerCase();
  if (['true', 'on', 'yes', '1', 'enable', 'enabled'].includes(v)) return true;
  if (['false', 'off', 'no', '0', 'disable', 'disabled'].includes(v)) return false;
  throw new ConfigError(`${name}="${value}" is not a boolean`, 'expected true or false');
}

/** A secret from NAME or from the file named by NAME_FILE (Docker/Kubernetes secrets). */
function secretFrom(env: Env, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const file = env[`${name}_FILE`];
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(`${name}_FILE="${file}" cannot be read: ${(err as Error).message}`, 'point it at a readable file holding the value');
  }
}

function loadCredentials(env: Env): ServerConfig['credentials'] {
  const accessKey = secretFrom(env, 'SVC_ACCESS_KEY') ?? secretFrom(env, 'MINIO_ROOT_USER');
  const secretKey = secretFrom(env, 'SVC_SECRET_KEY') ?? secretFrom(env, 'MINIO_ROOT_PASSWORD');
  if (accessKey === undefined && secretKey === undefined) return undefined;
  if (accessKey === undefined || secretKey === undefined) {
    throw new ConfigError('only one of SVC_ACCESS_KEY and SVC_SECRET_KEY is set', 'set both, or neither to have credentials generated on first start');
  }
  // MinIO's limits: access key >= 3 chars, secret key >= 8 chars.
  if (accessKey.length < 3) throw new ConfigError('SVC_ACCESS_KEY is shorter than 3 characters', 'use an access key of 3 to 128 characters');
  if (secretKey.length < 8) throw new ConfigError('SVC_SECRET_KEY is shorter than 8 characters', 'use a secret key of 8 to 256 characters');
  return { accessKey, secretKey };
}

/** True for a node-URL endpoint argument (`http://…`); anything else is a drive path. */
export function isEndpointUrl(arg: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(arg);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Where generated credentials live: SVC_CONFIG_DIR, else the common parent of the drives
 * (`./data/drive{1...4}` → `./data`), else the parent of the first drive.
 */
function defaultConfigDir(drives: readonly string[]): string {
  const parents = new Set(drives.map((d) => dirname(d)));
  const first = drives[0] ?? '.';
  return parents.size === 1 ? [...parents][0] ?? dirname(first) : dirname(first);
}

/** Builds the frozen ServerConfig, or throws ConfigErrors naming every bad setting. */
export function loadConfig(flags: ServerFlags, env: Env, cwd: string): Readonly<ServerConfig> {
  const problems: ConfigError[] = [];
  const attempt = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ConfigError) problems.push(err);
      else throw err;
      return fallback;
    }
  };
  const fallbackAddr: ListenAddress = { host: '', port: 0 };
  const address = attempt(
    () => flags.address !== undefined ? parseAddress(flags.address, '--address') : parseAddress(env.SVC_ADDRESS ?? DEFAULTS.address, 'SVC_ADDRESS'),
    fallbackAddr,
  );
  const consoleAddress = attempt(
    () => flags.consoleAddress !== undefined
      ? parseAddress(flags.consoleAddress, '--console-address')
      : parseAddress(env.SVC_CONSOLE_ADDRESS ?? DEFAULTS.consoleAddress, 'SVC_CONSOLE_ADDRESS'),
    fallbackAddr,
  );
  const consoleEnabled = attempt(() => parseBool(env.SVC_CONSOLE_ENABLE, 'SVC_CONSOLE_ENABLE', true), true);
  const healthEndpointsEnabled = attempt(() => parseBool(env.SVC_HEALTH_ENDPOINT_ENABLE, 'SVC_HEALTH_ENDPOINT_ENABLE', true), true);
  const credentials = attempt(() => loadCredentials(env), undefined);
  const kmsSecretKey = attempt(() => checkKmsSecretKey(env.SVC_KMS_SECRET_KEY), undefined);
  const sseCOverHttp = attempt(() => parseBool(env.SVC_SSE_C_ALLOW_HTTP, 'SVC_SSE_C_ALLOW_HTTP', false), false);
  const keyIndex = attempt(() => parseBool(env.SVC_KEY_INDEX, 'SVC_KEY_INDEX', true), true);
  const levelRaw = (env.SVC_OBS_LOGGER_LEVEL ?? DEFAULTS.logLevel).trim().toLowerCase();
  const logLevel = attempt(() => {
    const found = LOG_LEVELS.find((l) => l === levelRaw);
    if (!found) throw new ConfigError(`SVC_OBS_LOGGER_LEVEL="${levelRaw}" is not a log level`, `expected one of ${LOG_LEVELS.join(', ')}`);
    return found;
  }, 'info' as ServerConfig['logLevel']);

  let sets: string[][] = [];
  let parity = 0;
  let drives: string[] = [];
  const urlMode = flags.drives.some(isEndpointUrl);
  if (urlMode) {
    const path = flags.drives.find((a) => !isEndpointUrl(a));
    if (path !== undefined) {
      problems.push(new ConfigError(`"${path}" is a path but "${flags.drives.find(isEndpointUrl)}" is a URL`,
        'use either drive paths (/data{1...4}) or node URLs (http://node{1...4}:9000/data{1...4}), not both'));
    }
    // Generated credentials would differ on every node, and nodes authenticate each other with them.
    if (credentials === undefined && !problems.some((p) => p.message.includes('SVC_ACCESS_KEY'))) {
      problems.push(new ConfigError('node URLs are given but SVC_ACCESS_KEY and SVC_SECRET_KEY are not set',
        'a cluster needs the same root credentials on every node: set SVC_ACCESS_KEY and SVC_SECRET_KEY (or their *_FILE forms)'));
    }
  } else if (flags.drives.length === 0) {
    problems.push(new ConfigError('no drives given', 'usage: svc server [--address :9000] [--console-address :9001] DRIVES... (e.g. /data{1...4})'));
  } else {
    attempt(() => {
      const expanded = flags.drives.map((arg) => expandEllipsis(arg));
      drives = expanded.flat().map((d) => resolve(cwd, d));
      if (new Set(drives).size !== drives.length) throw new ConfigError('the same drive is given twice', 'each drive may appear once');
      const rangeSizes = flags.drives.filter(hasEllipsis).flatMap((a) => parseRanges(a).map((r) => r.labels.length));
      const setSize = chooseSetSize(expanded.map((e) => e.length), rangeSizes);
      const layout = layoutPool(drives, setSize, env.SVC_STORAGE_CLASS_STANDARD || undefined);
      sets = layout.sets;
      parity = layout.parity;
      return undefined;
    }, undefined);
  }
  if (problems.length > 0) throw new ConfigErrors(problems);
  const configDir = env.SVC_CONFIG_DIR ? resolve(cwd, env.SVC_CONFIG_DIR) : urlMode ? cwd : defaultConfigDir(drives);
  const logDirectory = env.SVC_OBS_LOG_DIRECTORY ? resolve(cwd, env.SVC_OBS_LOG_DIRECTORY) : undefined;
  const config: ServerConfig = {
    address, consoleAddress, consoleEnabled, healthEndpointsEnabled, sets, parity,
    configDir, region: env.SVC_REGION || DEFAULTS.region, logLevel,
    // Like MINIO_DOMAIN: a comma-separated list; the S3 plugin normalizes each entry.
    domains: (env.SVC_DOMAIN ?? '').split(',').map((d) => d.trim()).filter((d) => d !== ''),
    ...(credentials ? { credentials } : {}),
    ...(urlMode ? { endpoints: [...flags.drives] } : {}),
    ...(env.SVC_STORAGE_CLASS_STANDARD ? { storageClass: env.SVC_STORAGE_CLASS_STANDARD } : {}),
    ...(env.SVC_HOSTNAME ? { hostname: env.SVC_HOSTNAME.trim() } : {}),
    ...(logDirectory ? { logDirectory } : {}),
    ...(kmsSecretKey !== undefined ? { kmsSecretKey } : {}),
    ...(sseCOverHttp ? { sseCOverHttp } : {}),
    keyIndex,
  };
  return Object.freeze(config);
}
