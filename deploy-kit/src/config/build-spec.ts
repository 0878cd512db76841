import { dump } from 'js-yaml';
import type { DeploymentSpec } from './schema.js';

/** Flat answers as `init` collects them from flags or prompts; every field optional. */
export interface SpecAnswers {
  s3Host?: string;
  consoleHost?: string;
  proxy?: string;
  tls?: string;
  acmeEmail?: string;
  acmeDirectory?: string;
  staging?: boolean;
  pemFile?: string;
  nodes?: number;
  drivesPerNode?: number;
  /** A number, or the `EC:n` form of `--parity`. */
  parity?: number | string;
  serverImage?: string;
  proxyImage?: string;
  baseImage?: string;
  dockerProvider?: boolean;
}

function compact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/**
 * Shapes flat answers into a raw spec for {@link parseSpec}; it validates nothing itself, so the
 * caller gets every problem from one parseSpec call.
 */
export function buildSpec(input: Partial<SpecAnswers>): unknown {
  const tls =
    input.tls === 'acme'
      ? { mode: 'acme', acme: compact({ email: input.acmeEmail, directory: input.acmeDirectory, staging: input.staging }) }
      : input.tls === 'pem'
        ? { mode: 'pem', pem: compact({ file: input.pemFile }) }
        : compact({ mode: input.tls });
  const images = compact({ server: input.serverImage, proxy: input.proxyImage, base: input.baseImage });
  return compact({
    version: 1,
    hosts: compact({ s3: input.s3Host, console: input.consoleHost }),
    proxy: input.proxy,
    tls,
    cluster: compact({ nodes: input.nodes, drivesPerNode: input.drivesPerNode, parity: input.parity }),
    images: Object.keys(images).length > 0 ? images : undefined,
    dockerProvider: input.dockerProvider === true ? true : undefined,
  });
}

/** Serializes a validated spec as the YAML written to deploy-kit.yaml (stable key order, no line folding). */
export function formatSpec(spec: DeploymentSpec): string {
  const header = '# deploy-kit deployment spec: edit it, then run `deploy-kit render` and `deploy-kit check`.\n';
  return header + dump(spec, { lineWidth: -1, noRefs: true });
}
