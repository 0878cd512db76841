/**
 * init's values: flags, then an existing spec as defaults, validated together so every missing or invalid value is
 * reported at once (STYLE.md convention 8). Pure.
 */
import { buildSpec, parseSpec } from '../../config/index.js';
import type { DeploymentSpec, SpecAnswers } from '../../config/index.js';

/** Options of `init`, as typed on the command line (numbers stay strings so bad ones are reported with the rest). */
export interface InitOptions {
  readonly dir: string | undefined;
  readonly s3Host: string | undefined;
  readonly consoleHost: string | undefined;
  readonly proxy: string | undefined;
  readonly tls: string | undefined;
  readonly acmeEmail: string | undefined;
  readonly acmeDirectory: string | undefined;
  readonly staging: boolean | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  readonly pem: string | undefined;
  readonly nodes: string | undefined;
  readonly drivesPerNode: string | undefined;
  readonly parity: string | undefined;
  readonly image: string | undefined;
  readonly proxyImage: string | undefined;
  readonly baseImage: string | undefined;
  readonly templates: string | undefined;
  readonly json: boolean;
}

/** Where init takes the certificate from (pem mode only). */
export type CertInput =
  | { readonly kind: 'none' }
  | { readonly kind: 'pair'; readonly cert: string; readonly key: string }
  | { readonly kind: 'combined'; readonly pem: string };

/** A problem with one init value, named by its flag. */
export interface InitProblem {
  readonly flag: string;
  readonly message: string;
  readonly hint?: string;
}

/** One problem as one line: `--console-host: same hostname as hosts.s3 (fix: …)`. */
export function initProblemLine(p: InitProblem): string {
  return `${p.flag}: ${p.message}${p.hint === undefined ? '' : ` (fix: ${p.hint})`}`;
}

/** Spec paths → the flag that sets them, so parseSpec problems speak init's language. */
export const FLAG_OF_PATH: Readonly<Record<string, string>> = {
  'hosts.s3': '--s3-host',
  'hosts.console': '--console-host',
  proxy: '--proxy',
  'tls.mode': '--tls',
  'tls.acme.email': '--acme-email',
  'tls.acme.directory': '--acme-directory',
  'tls.acme.staging': '--staging',
  'cluster.nodes': '--nodes',
  'cluster.drivesPerNode': '--drives-per-node',
  'cluster.parity': '--parity',
  'images.server': '--image',
  'images.proxy': '--proxy-image',
  'images.base': '--base-image',
};

/** Flat answers of a valid spec, used as defaults when init runs again in the same directory. */
export function answersFromSpec(spec: DeploymentSpec): SpecAnswers {
  return {
    s3Host: spec.hosts.s3,
    consoleHost: spec.hosts.console,
    proxy: spec.proxy,
    tls: spec.tls.mode,
    ...(spec.tls.mode === 'acme'
      ? { acmeEmail: spec.tls.acme.email, acmeDirectory: spec.tls.acme.directory, staging: spec.tls.acme.staging }
      : { pemFile: spec.tls.pem.file }),
    nodes: spec.cluster.nodes,
    drivesPerNode: spec.cluster.drivesPerNode,
    ...(spec.cluster.parity === undefined ? {} : { parity: spec.cluster.parity }),
    serverImage: spec.images.server,
    proxyImage: spec.images.proxy,
    ...(spec.images.base === undefined ? {} : { baseImage: spec.images.base }),
    ...(spec.dockerProvider === true ? { dockerProvider: true } : {}),
  };
}

function wholeNumber(flag: string, v: string | undefined, problems: InitProblem[]): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) {
    problems.push({ flag, message: `"${v}" is not a whole number`, hint: `pass ${flag} <n>` });
    return undefined;
  }
  return Number(v.trim());
}

/** Flags over `base` (an existing spec's answers); syntax problems of the flags themselves are returned too. */
export function answersFromOptions(opts: InitOptions, base: SpecAnswers = {}): { answers: SpecAnswers; problems: InitProblem[] } {
  const problems: InitProblem[] = [];
  const nodes = wholeNumber('--nodes', opts.nodes, problems);
  const drives = wholeNumber('--drives-per-node', opts.drivesPerNode, problems);
  const proxyChanged = opts.proxy !== undefined && opts.proxy !== base.proxy;
  const answers: SpecAnswers = {
    ...base,
    ...(proxyChanged ? { proxyImage: undefined } : {}),
    ...defined({
      s3Host: opts.s3Host, consoleHost: opts.consoleHost, proxy: opts.proxy, tls: opts.tls, acmeEmail: opts.acmeEmail,
      acmeDirectory: opts.acmeDirectory, staging: opts.staging, nodes, drivesPerNode: drives, parity: opts.parity,
      serverImage: opts.image, proxyImage: opts.proxyImage, baseImage: opts.baseImage,
    }),
  };
  // --staging alone means Let's Encrypt staging: drop a remembered production directory instead of contradicting it.
  if (opts.staging === true && opts.acmeDirectory === undefined) delete answers.acmeDirectory;
  if (answers.nodes === undefined && !problems.some((p) => p.flag === '--nodes')) answers.nodes = 1;
  if (answers.drivesPerNode === undefined && !problems.some((p) => p.flag === '--drives-per-node')) answers.drivesPerNode = 1;
  return { answers, problems };
}

function defined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The certificate input named by the flags, or a problem when the combination is wrong. */
export function certInputFromOptions(opts: InitOptions): { input: CertInput; problems: InitProblem[] } {
  const problems: InitProblem[] = [];
  if (opts.pem !== undefined && (opts.cert !== undefined || opts.key !== undefined)) {
    problems.push({ flag: '--pem', message: 'cannot be combined with --cert/--key', hint: 'give either --cert and --key, or --pem' });
  } else if ((opts.cert === undefined) !== (opts.key === undefined)) {
    const missing = opts.cert === undefined ? '--cert' : '--key';
    problems.push({ flag: missing, message: 'is missing', hint: 'give --cert <chain.pem> together with --key <key.pem>' });
  }
  if (problems.length > 0) return { input: { kind: 'none' }, problems };
  if (opts.pem !== undefined) return { input: { kind: 'combined', pem: opts.pem }, problems };
  if (opts.cert !== undefined && opts.key !== undefined) return { input: { kind: 'pair', cert: opts.cert, key: opts.key }, problems };
  return { input: { kind: 'none' }, problems };
}

/** Values init cannot default: both hostnames, the proxy, the TLS mode and, for ACME, the account e-mail. */
export function missingRequired(a: SpecAnswers): InitProblem[] {
  const out: InitProblem[] = [];
  if (a.s3Host === undefined) out.push({ flag: '--s3-host', message: 'is missing', hint: 'pass --s3-host <hostname>, e.g. s3.example.com' });
  if (a.consoleHost === undefined) out.push({ flag: '--console-host', message: 'is missing', hint: 'pass --console-host <hostname>, e.g. console.example.com' });
  if (a.proxy === undefined) out.push({ flag: '--proxy', message: 'is missing', hint: 'pass --proxy traefik or --proxy haproxy' });
  if (a.tls === undefined) out.push({ flag: '--tls', message: 'is missing', hint: 'pass --tls acme (automatic certificates) or --tls pem (your own)' });
  if (a.tls === 'acme' && a.acmeEmail === undefined) out.push({ flag: '--acme-email', message: 'is missing', hint: 'pass --acme-email <address> for expiry notices' });
  return out;
}

/** Validates the answers with parseSpec; problems are renamed to flags and those already reported are dropped. */
export function validateAnswers(a: SpecAnswers, alreadyReported: readonly InitProblem[]): { spec?: DeploymentSpec; problems: InitProblem[] } {
  const { spec, problems } = parseSpec(buildSpec(a));
  const seen = new Set(alreadyReported.map((p) => p.flag));
  const mapped = problems
    .map((p): InitProblem => ({ flag: FLAG_OF_PATH[p.path] ?? p.path, message: p.message, ...(p.hint === undefined ? {} : { hint: p.hint }) }))
    .filter((p) => !seen.has(p.flag));
  return spec === undefined || mapped.length > 0 ? { problems: mapped } : { spec, problems: [] };
}
