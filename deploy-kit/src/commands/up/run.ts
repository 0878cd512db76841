/**
 * `deploy-kit up`: spec (+ image overrides) → render → images present (built from the repository when a base image
 * is given) → (HAProxy + ACME: placeholder certificate) → compose up → (HAProxy + ACME: obtain or keep the certificate,
 * load a new one into the proxy) → wait until S3 `/health/ready` and console `/svc/console/health` answer 200 through the
 * proxy over TLS → endpoints. A failure names the failing service and prints its last log lines.
 */
import { dirname, join, resolve } from 'node:path';
import {
  buildServerImage,
  createStepPrinter,
  createTlsProbe,
  describeProbe,
  failingContainer,
  httpsUrl,
  imageExists,
  listContainers,
  mustCompose,
  openDeployment,
  prepareComposeFile,
  proxyAddress,
  publishOverride,
  readDeploymentCa,
  REAL_WAITER,
  runCompose,
  tailLines,
  waitUntilReady,
} from '../../compose/index.js';
import type { Deployment, ProxyProbe, ReadyCheck, Waiter } from '../../compose/index.js';
import { defaultAcmeCa, deployKitAcme } from '../../certs/acme/index.js';
import type { AcmeCa } from '../../certs/acme/index.js';
import { SPEC_FILE_NAME, formatSpec } from '../../config/index.js';
import type { DeploymentSpec } from '../../config/index.js';
import { loadSpec } from '../../config/load.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { CERT_PATHS, CONSOLE_PATH, HEALTH_PATHS, SERVICE_NAMES } from '../../providers/index.js';
import { certLayoutFor } from '../cert-layout.js';
import { renderDeployment } from '../render-pipeline.js';
import { resolveDir } from '../shared.js';
import { obtainAfterStart, placeholderBeforeStart } from './acme.js';

/** Options of `up`. */
export interface UpOptions {
  readonly dir: string | undefined;
  readonly project: string | undefined;
  /** Server image; written to the spec when it differs. */
  readonly image: string | undefined;
  readonly proxyImage: string | undefined;
  /** Base image to build the server image from when it is not present locally. */
  readonly baseImage: string | undefined;
  readonly publishHttp: string | undefined;
  readonly publishHttps: string | undefined;
  readonly timeoutSeconds: number;
  readonly templates: string | undefined;
  /** Start the files as they are on disk (hand-edited deployments) instead of rendering them from the spec first. */
  readonly noRender: boolean;
  /** ACME: renew even when the certificate has more than 30 days left. */
  readonly force: boolean;
  /** ACME: rehearse the order against the staging directory first. */
  readonly staging: boolean;
  readonly json: boolean;
}

/** What `up` needs besides Deps: the TLS probe, time and the ACME CA (tests pass fakes). */
export interface UpEffects {
  readonly probe: ProxyProbe;
  readonly waiter: Waiter;
  /** Default: acme-client ({@link defaultAcmeCa}). */
  readonly ca?: AcmeCa;
}

const REAL_EFFECTS: UpEffects = { probe: createTlsProbe(), waiter: REAL_WAITER };

async function applyImageOverrides(deps: Deps, dir: string, spec: DeploymentSpec, opts: UpOptions): Promise<DeploymentSpec> {
  const images = { server: opts.image ?? spec.images.server, proxy: opts.proxyImage ?? spec.images.proxy };
  if (images.server === spec.images.server && images.proxy === spec.images.proxy) return spec;
  const next = { ...spec, images };
  await deps.fs.writeAtomic(join(dir, SPEC_FILE_NAME), formatSpec(next), 0o644);
  // Read back through the validator: an override must be a valid image reference like any spec value.
  return (await loadSpec(deps.fs, dir)).spec;
}

async function requireFiles(deps: Deps, dir: string, spec: DeploymentSpec): Promise<void> {
  if ((await deps.fs.stat(join(dir, CERT_PATHS.env))) === undefined) {
    throw new DeployKitError('DK_ERR_IO', `no ${CERT_PATHS.env} in ${dir}`, { hint: 'run `deploy-kit init` there: it generates the credentials' });
  }
  const pem = certLayoutFor(spec).combined;
  if ((await deps.fs.stat(join(dir, pem))) === undefined) {
    throw new DeployKitError('DK_ERR_IO', `no certificate at ${pem}`, {
      hint: spec.tls.mode === 'pem'
        ? 'run `deploy-kit cert import --pem <file>` (or `deploy-kit cert self-signed` to try things out)'
        : 'obtain the ACME certificate first (or `deploy-kit cert self-signed` to try things out)',
    });
  }
}

async function ensureImages(deps: Deps, spec: DeploymentSpec, opts: UpOptions, note: (t: string) => void): Promise<boolean> {
  let allLocal = true;
  if (!(await imageExists(deps.exec, spec.images.server))) {
    const baseImage = opts.baseImage ?? spec.images.base;
    if (baseImage === undefined) {
      note(`${spec.images.server} is not present locally: compose will pull it (or pass --base-image to build it)`);
      allLocal = false;
    } else {
      note(`building ${spec.images.server} on ${baseImage}`);
      await buildServerImage(deps.fs, deps.exec, { repo: dirname(deps.paths.templatesDir), tag: spec.images.server, baseImage });
    }
  }
  if (!(await imageExists(deps.exec, spec.images.proxy))) {
    note(`${spec.images.proxy} is not present locally: compose will pull it`);
    allLocal = false;
  }
  return allLocal;
}

async function failureReport(deps: Deps, d: Deployment, why: string, extra: readonly string[]): Promise<DeployKitError> {
  const states = await listContainers(deps.exec, d.compose);
  const bad = failingContainer(states) ?? states.find((s) => s.service === SERVICE_NAMES.proxy);
  const details = [...extra];
  if (bad !== undefined) {
    details.push(`service ${bad.service} (${bad.name}): ${bad.status}${bad.health === '' ? '' : `, ${bad.health}`}; last log lines:`);
    const logs = await runCompose(deps.exec, d.compose, ['logs', '--no-color', '--tail', '20', bad.service], 30_000);
    details.push(...tailLines(`${logs.stdout}\n${logs.stderr}`, 20).map((l) => `  ${l}`));
  }
  return new DeployKitError('DK_ERR_EXTERNAL_TOOL', why, {
    hint: `inspect with \`deploy-kit logs${bad === undefined ? '' : ` ${bad.service}`} --dir ${d.dir}\`; fix, then run \`deploy-kit up\` again`,
    details,
  });
}

/** Starts the deployment in `opts.dir` and waits until it serves through the proxy. */
export async function runUp(opts: UpOptions, deps: Deps, effects: UpEffects = REAL_EFFECTS): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const steps = createStepPrinter(deps.out);
  const override = publishOverride({ http: opts.publishHttp, https: opts.publishHttps }, deps.env);
  let spec = (await loadSpec(deps.fs, dir)).spec;
  spec = await applyImageOverrides(deps, dir, spec, opts);
  const templatesDir = opts.templates === undefined ? deps.paths.templatesDir : resolve(deps.cwd, opts.templates);
  if (!opts.noRender) await steps.step('render', () => renderDeployment(spec, dir, 'write', deps, templatesDir));
  const acme = deployKitAcme(spec);
  if (acme !== undefined) {
    const wrote = await placeholderBeforeStart(deps, spec, dir);
    if (wrote !== undefined) steps.note(wrote);
  }
  await requireFiles(deps, dir, spec);
  const composeFile = await prepareComposeFile(deps.fs, dir, override, SERVICE_NAMES.proxy);
  const d = await openDeployment(deps, dir, opts.project, composeFile);
  const allLocal = await steps.step('images', () => ensureImages(deps, spec, opts, steps.note));
  // Compose v2 can be told never to pull; v1 has no such flag but never pulls an image that is present.
  const pull = allLocal && d.compose.tool.kind === 'v2' ? ['--pull', 'never'] : [];
  await steps.step(`start (${d.compose.tool.version}, project ${d.compose.project})`, async () => {
    try {
      await mustCompose(deps.exec, d.compose, ['up', '-d', '--remove-orphans', ...pull], 600_000);
    } catch (err) {
      const extra = err instanceof DeployKitError ? err.details : [];
      throw await failureReport(deps, d, `compose up failed for project ${d.compose.project}`, extra);
    }
  });
  if (acme !== undefined) {
    const ca = effects.ca ?? defaultAcmeCa(deps.env);
    await steps.step(`ACME certificate (${acme.directory})`,
      () => obtainAfterStart(deps, d, acme, ca, { force: opts.force, staging: opts.staging }, steps.note));
  }
  const at = await proxyAddress(deps.fs, d);
  const ca = await readDeploymentCa(deps.fs, dir);
  const checks: ReadyCheck[] = [
    { name: `S3 ${HEALTH_PATHS.s3Ready}`, request: { address: at.address, port: at.httpsPort, host: spec.hosts.s3, path: HEALTH_PATHS.s3Ready, ca, timeoutMs: 5000 }, last: undefined },
    { name: `console ${HEALTH_PATHS.consoleHealth}`, request: { address: at.address, port: at.httpsPort, host: spec.hosts.console, path: HEALTH_PATHS.consoleHealth, ca, timeoutMs: 5000 }, last: undefined },
  ];
  await steps.step('ready through the proxy (TLS)', async () => {
    const pending = await waitUntilReady(effects.probe, checks, opts.timeoutSeconds * 1000, effects.waiter);
    if (pending.length > 0) {
      throw await failureReport(deps, d, `not ready through the proxy after ${opts.timeoutSeconds} s`,
        pending.map((c) => `https://${c.request.host}${c.request.path} via ${at.address}:${at.httpsPort}: ${describeProbe(c.last)}`));
    }
  });
  const s3 = httpsUrl(spec.hosts.s3, at.httpsPort);
  const consoleUrl = httpsUrl(spec.hosts.console, at.httpsPort, CONSOLE_PATH);
  const envFile = join(dir, CERT_PATHS.env);
  const alias = `rc alias set svc ${s3} "$SVC_ACCESS_KEY" "$SVC_SECRET_KEY"`;
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({ project: d.compose.project, s3, console: consoleUrl, credentials: envFile, ca: ca === undefined ? null : join(dir, 'certs/ca.crt'), alias }, null, 2)}\n`);
    return;
  }
  const lines = [
    `svc is up (project ${d.compose.project})`,
    `  S3 API:      ${s3}`,
    `  console:     ${consoleUrl}`,
    `  credentials: ${envFile} (SVC_ACCESS_KEY, SVC_SECRET_KEY; mode 600)`,
  ];
  if (ca !== undefined) lines.push(`  trust:       ${join(dir, 'certs/ca.crt')} (self-signed: --cacert / --ca-bundle)`);
  lines.push('', 'configure the client:', `  set -a; . ${envFile}; set +a`, `  ${alias}`);
  deps.out.stdout(`${lines.join('\n')}\n`);
}
