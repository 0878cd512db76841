import {
  DEFAULT_HEALTH_CHECK,
  DEFAULT_PEM_FILE,
  DEFAULT_PROXY_IMAGES,
  DEFAULT_SERVER_IMAGE,
  LETSENCRYPT_PRODUCTION,
  LETSENCRYPT_STAGING,
  LIMITS,
} from './defaults.js';
import {
  checkDirectoryUrl,
  checkEmail,
  checkHostname,
  checkImageRef,
  checkIntRange,
  checkPemInFolder,
  checkRelativePath,
  maxParity,
  type RuleFailure,
} from './rules.js';
import { PROXIES, TLS_MODES } from './schema.js';
import type { DeploymentSpec, HealthCheckSpec, ParseSpecResult, Problem, ProxyKind, TlsSpec } from './schema.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v}"`;
  if (typeof v === 'object') return 'a mapping';
  return String(v);
}

/** Collects problems while reading one raw mapping; never throws. */
class Reader {
  readonly problems: Problem[] = [];

  add(path: string, message: string, hint?: string): void {
    this.problems.push(hint === undefined ? { path, message } : { path, message, hint });
  }

  fail(path: string, f: RuleFailure | undefined): boolean {
    if (f === undefined) return false;
    this.add(path, f.message, f.hint);
    return true;
  }

  /** Reports keys that the schema does not know: typos would otherwise be silently ignored. */
  keys(obj: Obj, prefix: string, allowed: readonly string[]): void {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) this.add(join(prefix, k), 'unknown key', `allowed keys here: ${allowed.join(', ')}`);
    }
  }

  section(obj: Obj, key: string, prefix: string, required: boolean): Obj | undefined {
    const v = obj[key];
    const path = join(prefix, key);
    if (v === undefined || v === null) {
      if (required) this.add(path, 'is missing', `add a "${key}:" mapping`);
      return undefined;
    }
    if (!isObj(v)) {
      this.add(path, `must be a mapping, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  str(obj: Obj, key: string, prefix: string, fallback?: string): string | undefined {
    const v = obj[key];
    const path = join(prefix, key);
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(path, 'is missing', `set ${path}`);
      return fallback;
    }
    if (typeof v !== 'string') {
      this.add(path, `must be a string, got ${describe(v)}`);
      return undefined;
    }
    return v.trim();
  }

  int(obj: Obj, key: string, prefix: string, min: number, max: number, fallback?: number): number | undefined {
    const v = obj[key];
    const path = join(prefix, key);
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(path, 'is missing', `set ${path} to a whole number from ${min} to ${max}`);
      return fallback;
    }
    if (typeof v !== 'number') {
      this.add(path, `must be a number, got ${describe(v)}`, `use a whole number from ${min} to ${max}`);
      return undefined;
    }
    return this.fail(path, checkIntRange(v, min, max)) ? undefined : v;
  }

  bool(obj: Obj, key: string, prefix: string, fallback: boolean): boolean | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') {
      this.add(join(prefix, key), `must be true or false, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }
}

function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

function readHosts(r: Reader, root: Obj): DeploymentSpec['hosts'] | undefined {
  const hosts = r.section(root, 'hosts', '', true);
  if (!hosts) return undefined;
  r.keys(hosts, 'hosts', ['s3', 'console']);
  const s3 = r.str(hosts, 's3', 'hosts')?.toLowerCase();
  const con = r.str(hosts, 'console', 'hosts')?.toLowerCase();
  const s3ok = s3 !== undefined && !r.fail('hosts.s3', checkHostname(s3));
  const conOk = con !== undefined && !r.fail('hosts.console', checkHostname(con));
  if (s3ok && conOk && s3 === con) {
    // SPEC rule 1: the proxy routes by hostname, so one name cannot reach both 9000 and 9001.
    r.add('hosts.console', `same hostname as hosts.s3 ("${s3}")`, 'the S3 API and the console need two distinct hostnames (SPEC §4 rule 1), e.g. s3.example.com and console.example.com');
    return undefined;
  }
  return s3ok && conOk ? { s3, console: con } : undefined;
}

function readProxy(r: Reader, root: Obj): ProxyKind | undefined {
  const p = r.str(root, 'proxy', '');
  if (p === undefined) return undefined;
  if (!(PROXIES as readonly string[]).includes(p)) {
    r.add('proxy', `"${p}" is not a supported proxy`, `use one of: ${PROXIES.join(', ')}`);
    return undefined;
  }
  return p as ProxyKind;
}

function readAcme(r: Reader, tls: Obj): TlsSpec | undefined {
  const acme = r.section(tls, 'acme', 'tls', true);
  if (!acme) return undefined;
  r.keys(acme, 'tls.acme', ['email', 'directory', 'staging']);
  const email = r.str(acme, 'email', 'tls.acme');
  const emailOk = email !== undefined && !r.fail('tls.acme.email', checkEmail(email));
  const staging = r.bool(acme, 'staging', 'tls.acme', false);
  const explicitDir = acme['directory'] !== undefined && acme['directory'] !== null;
  const directory = r.str(acme, 'directory', 'tls.acme', staging === true ? LETSENCRYPT_STAGING : LETSENCRYPT_PRODUCTION);
  let dirOk = directory !== undefined && !r.fail('tls.acme.directory', checkDirectoryUrl(directory));
  if (dirOk && explicitDir && staging === true && directory === LETSENCRYPT_PRODUCTION) {
    r.add('tls.acme.directory', 'is the production directory but staging is true', `remove tls.acme.directory to use ${LETSENCRYPT_STAGING}, or set staging: false`);
    dirOk = false;
  }
  if (!emailOk || !dirOk || staging === undefined || email === undefined || directory === undefined) return undefined;
  return { mode: 'acme', acme: { email, directory, staging } };
}

function readPem(r: Reader, tls: Obj): TlsSpec | undefined {
  const pem = r.section(tls, 'pem', 'tls', false) ?? {};
  r.keys(pem, 'tls.pem', ['file']);
  const file = r.str(pem, 'file', 'tls.pem', DEFAULT_PEM_FILE);
  if (file === undefined || r.fail('tls.pem.file', checkRelativePath(file) ?? checkPemInFolder(file))) return undefined;
  return { mode: 'pem', pem: { file } };
}

function readTls(r: Reader, root: Obj): TlsSpec | undefined {
  const tls = r.section(root, 'tls', '', true);
  if (!tls) return undefined;
  r.keys(tls, 'tls', ['mode', 'acme', 'pem']);
  const mode = r.str(tls, 'mode', 'tls');
  if (mode === undefined) return undefined;
  if (!(TLS_MODES as readonly string[]).includes(mode)) {
    r.add('tls.mode', `"${mode}" is not a TLS mode`, `use one of: ${TLS_MODES.join(', ')}`);
    return undefined;
  }
  const other = mode === 'acme' ? 'pem' : 'acme';
  if (tls[other] !== undefined) r.add(`tls.${other}`, `is set but tls.mode is ${mode}`, `remove tls.${other} or set tls.mode: ${other}`);
  return mode === 'acme' ? readAcme(r, tls) : readPem(r, tls);
}

function readParity(r: Reader, cluster: Obj, nodes: number | undefined, drives: number | undefined): number | undefined | null {
  let v = cluster['parity'];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    const m = /^EC:(\d+)$/i.exec(v.trim());
    if (!m) {
      r.add('cluster.parity', `"${v}" is not a parity`, 'use a number (2) or the EC:n form (EC:2)');
      return null;
    }
    v = Number(m[1]);
  }
  if (typeof v !== 'number') {
    r.add('cluster.parity', `must be a number, got ${describe(v)}`, 'use a number such as 2');
    return null;
  }
  if (nodes === undefined || drives === undefined) return null;
  const max = maxParity(nodes, drives);
  if (r.fail('cluster.parity', checkIntRange(v, 0, max))) {
    r.problems[r.problems.length - 1]!.hint = `with ${nodes * drives} drives in total, parity must be between 0 and ${max} (half the drives)`;
    return null;
  }
  return v;
}

function readCluster(r: Reader, root: Obj): DeploymentSpec['cluster'] | undefined {
  const cluster = r.section(root, 'cluster', '', true);
  if (!cluster) return undefined;
  r.keys(cluster, 'cluster', ['nodes', 'drivesPerNode', 'parity']);
  const nodes = r.int(cluster, 'nodes', 'cluster', 1, LIMITS.maxNodes);
  const drivesPerNode = r.int(cluster, 'drivesPerNode', 'cluster', 1, LIMITS.maxDrivesPerNode);
  const parity = readParity(r, cluster, nodes, drivesPerNode);
  if (nodes === undefined || drivesPerNode === undefined || parity === null) return undefined;
  return parity === undefined ? { nodes, drivesPerNode } : { nodes, drivesPerNode, parity };
}

function readImages(r: Reader, root: Obj, proxy: ProxyKind | undefined): DeploymentSpec['images'] | undefined {
  const images = r.section(root, 'images', '', false) ?? {};
  r.keys(images, 'images', ['server', 'proxy', 'base']);
  const server = r.str(images, 'server', 'images', DEFAULT_SERVER_IMAGE);
  const proxyImage = r.str(images, 'proxy', 'images', proxy === undefined ? '' : DEFAULT_PROXY_IMAGES[proxy]);
  const serverOk = server !== undefined && !r.fail('images.server', checkImageRef(server));
  const proxyOk = proxyImage !== undefined && proxyImage !== '' && !r.fail('images.proxy', checkImageRef(proxyImage));
  const base = r.str(images, 'base', 'images', '');
  const baseOk = base === undefined || base === '' || !r.fail('images.base', checkImageRef(base));
  if (!serverOk || !proxyOk || !baseOk) return undefined;
  return base === undefined || base === '' ? { server, proxy: proxyImage } : { server, proxy: proxyImage, base };
}

function readHealth(r: Reader, root: Obj): HealthCheckSpec | undefined {
  const hc = r.section(root, 'healthCheck', '', false) ?? {};
  r.keys(hc, 'healthCheck', ['intervalSeconds', 'timeoutSeconds', 'fall', 'rise']);
  const d = DEFAULT_HEALTH_CHECK;
  const intervalSeconds = r.int(hc, 'intervalSeconds', 'healthCheck', 1, LIMITS.maxHealthSeconds, d.intervalSeconds);
  const timeoutSeconds = r.int(hc, 'timeoutSeconds', 'healthCheck', 1, LIMITS.maxHealthSeconds, d.timeoutSeconds);
  const fall = r.int(hc, 'fall', 'healthCheck', 1, LIMITS.maxFallRise, d.fall);
  const rise = r.int(hc, 'rise', 'healthCheck', 1, LIMITS.maxFallRise, d.rise);
  if (intervalSeconds === undefined || timeoutSeconds === undefined || fall === undefined || rise === undefined) return undefined;
  if (timeoutSeconds > intervalSeconds) {
    r.add('healthCheck.timeoutSeconds', `${timeoutSeconds} s is longer than the interval (${intervalSeconds} s)`, 'a check must time out before the next one starts; SPEC rule 7 uses 10 s / 5 s');
    return undefined;
  }
  return { intervalSeconds, timeoutSeconds, fall, rise };
}

/**
 * Reads a raw spec (the object js-yaml loaded from deploy-kit.yaml), fills defaults, and reports
 * every problem at once (STYLE.md convention 8). Never throws; `spec` is set only without problems.
 */
export function parseSpec(raw: unknown): ParseSpecResult {
  const r = new Reader();
  if (!isObj(raw)) {
    r.add('', `the spec must be a mapping, got ${raw === undefined ? 'nothing' : describe(raw)}`, 'start from `deploy-kit init` or an examples/*/deploy-kit.yaml');
    return { problems: r.problems };
  }
  r.keys(raw, '', ['version', 'hosts', 'proxy', 'tls', 'cluster', 'images', 'healthCheck', 'dockerProvider']);
  if (raw['version'] !== 1) r.add('version', raw['version'] === undefined ? 'is missing' : `${describe(raw['version'])} is not a supported version`, 'set version: 1');
  const hosts = readHosts(r, raw);
  const proxy = readProxy(r, raw);
  const tls = readTls(r, raw);
  const cluster = readCluster(r, raw);
  const images = readImages(r, raw, proxy);
  const healthCheck = readHealth(r, raw);
  const dockerProvider = r.bool(raw, 'dockerProvider', '', false);
  if (dockerProvider === true && proxy === 'haproxy') {
    r.add('dockerProvider', 'only applies to proxy: traefik', 'remove dockerProvider; HAProxy backends are rendered from the spec');
  }
  if (r.problems.length > 0 || !hosts || !proxy || !tls || !cluster || !images || !healthCheck || dockerProvider === undefined) {
    return { problems: r.problems };
  }
  const spec: DeploymentSpec = { version: 1, hosts, proxy, tls, cluster, images, healthCheck };
  if (dockerProvider) spec.dockerProvider = true;
  return { spec, problems: [] };
}
