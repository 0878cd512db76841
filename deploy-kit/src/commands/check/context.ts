/**
 * What `check` knows about a deployment even when its spec is broken: the spec's problems become findings, and the
 * remaining checks run on whatever values can still be read, so one run reports every problem.
 */
import { DEFAULT_PEM_FILE, PROXIES, parseSpec } from '../../config/index.js';
import type { DeploymentSpec, ProxyKind } from '../../config/index.js';
import { problemLine } from '../../config/load.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';

/** The values checks need, best effort. */
export interface CheckView {
  /** The valid spec, when there is one. */
  readonly spec: DeploymentSpec | undefined;
  /** Hostnames as written (deduplicated), valid or not. */
  readonly hosts: readonly string[];
  readonly proxy: ProxyKind | undefined;
  readonly tlsMode: 'acme' | 'pem' | undefined;
  /** Combined PEM path relative to the deployment directory. */
  readonly pemFile: string;
  readonly proxyImage: string | undefined;
  readonly dockerProvider: boolean;
}

function at(v: unknown, ...keys: string[]): unknown {
  let cur = v;
  for (const k of keys) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Parses the raw spec; problems are error findings (`spec:` lines). */
export function viewOfRawSpec(raw: unknown): { view: CheckView; findings: CheckFinding[] } {
  const { spec, problems } = parseSpec(raw);
  const findings = problems.map((p) => finding.error('spec', problemLine(p).replace(/ \(fix: .*\)$/, ''), p.hint ?? 'edit deploy-kit.yaml'));
  if (spec !== undefined && problems.length === 0) {
    return {
      view: {
        spec, hosts: [spec.hosts.s3, spec.hosts.console], proxy: spec.proxy, tlsMode: spec.tls.mode,
        pemFile: spec.tls.mode === 'pem' ? spec.tls.pem.file : DEFAULT_PEM_FILE, proxyImage: spec.images.proxy, dockerProvider: spec.dockerProvider === true,
      },
      findings,
    };
  }
  const hosts = [str(at(raw, 'hosts', 's3')), str(at(raw, 'hosts', 'console'))].filter((h): h is string => h !== undefined);
  const proxy = str(at(raw, 'proxy'));
  const mode = str(at(raw, 'tls', 'mode'));
  return {
    view: {
      spec: undefined,
      hosts: [...new Set(hosts)],
      proxy: (PROXIES as readonly string[]).includes(proxy ?? '') ? (proxy as ProxyKind) : undefined,
      tlsMode: mode === 'acme' || mode === 'pem' ? mode : undefined,
      pemFile: str(at(raw, 'tls', 'pem', 'file')) ?? DEFAULT_PEM_FILE,
      proxyImage: str(at(raw, 'images', 'proxy')),
      dockerProvider: at(raw, 'dockerProvider') === true,
    },
    findings,
  };
}
