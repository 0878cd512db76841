/** A deployment directory as the compose-driving commands see it: spec, compose project, published proxy ports. */
import { join } from 'node:path';
import type { DeploymentSpec } from '../config/index.js';
import { loadSpec } from '../config/load.js';
import { DeployKitError } from '../errors.js';
import type { Deps, Fs } from '../io/index.js';
import { PORTS, SERVICE_NAMES } from '../providers/index.js';
import { currentComposeFile, publishedBinding } from './publish.js';
import { defaultProjectName, detectCompose, isProjectName } from './tool.js';
import type { ComposeProject } from './tool.js';

/** Public CA certificate written by `cert self-signed` (trusted by the probes in addition to the system roots). */
export const DEPLOYMENT_CA_FILE = 'certs/ca.crt';

/** An opened deployment. */
export interface Deployment {
  readonly dir: string;
  readonly spec: DeploymentSpec;
  readonly compose: ComposeProject;
}

/** The project name given, or the directory's; a bad one is a usage error. */
export function projectNameFor(dir: string, given: string | undefined): string {
  const name = given ?? defaultProjectName(dir);
  if (!isProjectName(name)) {
    throw new DeployKitError('DK_ERR_USAGE', `"${name}" is not a compose project name`, { hint: 'use lower-case letters, digits, - and _ (starting with a letter or digit)' });
  }
  return name;
}

/** Loads the spec and finds compose; `composeFile` defaults to the file the deployment was started from. */
export async function openDeployment(deps: Pick<Deps, 'fs' | 'exec'>, dir: string, project: string | undefined, composeFile?: string): Promise<Deployment> {
  const { spec } = await loadSpec(deps.fs, dir);
  const name = projectNameFor(dir, project);
  const tool = await detectCompose(deps.exec);
  return { dir, spec, compose: { tool, project: name, file: composeFile ?? (await currentComposeFile(deps.fs, dir)) } };
}

/** Where a host-side client reaches the proxy. */
export interface ProxyAddress {
  /** Address to connect to: the published address, or 127.0.0.1 for all interfaces. */
  readonly address: string;
  readonly httpPort: number;
  readonly httpsPort: number;
}

/** The proxy's published 80/443 as a local client reaches them. */
export async function proxyAddress(fs: Fs, d: Deployment): Promise<ProxyAddress> {
  const http = await publishedBinding(fs, d.compose.file, SERVICE_NAMES.proxy, PORTS.http);
  const https = await publishedBinding(fs, d.compose.file, SERVICE_NAMES.proxy, PORTS.https);
  const addr = https?.address ?? http?.address;
  return {
    address: addr === undefined || addr === '0.0.0.0' || addr === '' ? '127.0.0.1' : addr,
    httpPort: http?.port ?? PORTS.http,
    httpsPort: https?.port ?? PORTS.https,
  };
}

/** The deployment's own CA (self-signed mode), or undefined. */
export function readDeploymentCa(fs: Fs, dir: string): Promise<string | undefined> {
  return fs.readText(join(dir, DEPLOYMENT_CA_FILE));
}

/** `https://host` with `:port` when it is not 443. */
export function httpsUrl(host: string, port: number, path = ''): string {
  return `https://${host}${port === PORTS.https ? '' : `:${port}`}${path}`;
}
