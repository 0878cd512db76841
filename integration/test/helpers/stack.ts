/**
 * A real deployment made with deploy-kit itself: `init` (HAProxy + PEM) → `cert self-signed` → optional spec and
 * compose edits → `up` on free loopback ports (never 80/443: they may be taken or privileged in CI). Reused by
 * every proxy scenario (and by the ACME / rotation suites of issue 7).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { BASE_IMAGES, RUN_ID, docker } from './env.js';
import { deployKit, runDeployKit } from './deploy-kit.js';
import { freePort } from './net.js';
import { serverImage } from './server-image.js';

/** Hostnames of every test deployment (the proxy is reached on 127.0.0.1 with these as SNI/Host). */
export const TEST_HOSTS = { s3: 's3.svc.test', console: 'console.svc.test' } as const;

/** How to shape the deployment. */
export interface StackOptions {
  /** Short name, part of the compose project name. */
  readonly name: string;
  /** Extra environment of every deploy-kit run (e.g. DOCKER_CONFIG with the compose v2 plugin). */
  readonly env?: Readonly<Record<string, string>>;
  readonly nodes?: number;
  /** Drives per node (`init --drives-per-node`, default 1). */
  readonly drivesPerNode?: number;
  /** Erasure-code parity EC:n (`init --parity`, default: the server's choice). */
  readonly parity?: number;
  /** spec.healthCheck overrides (the fast suite renders short intervals; SPEC rule 7 defaults are asserted statically). */
  readonly healthCheck?: { intervalSeconds?: number; timeoutSeconds?: number; fall?: number; rise?: number };
  /**
   * Run every node as an independent single-node server (`server --console-address :9001 /data`) instead of the
   * rendered cluster endpoint list: proves the proxy's behaviour without depending on the cluster (`up --no-render`).
   */
  readonly independentNodes?: boolean;
  /** Called with the deployment directory after render and before `up` (e.g. to edit files). */
  readonly beforeUp?: (dir: string) => Promise<void>;
}

/** A running deployment. */
export interface Stack {
  readonly dir: string;
  readonly project: string;
  readonly hosts: typeof TEST_HOSTS;
  readonly httpPort: number;
  readonly httpsPort: number;
  /** certs/ca.crt: the self-signed CA clients trust. */
  readonly ca: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** stdout of `deploy-kit up`. */
  readonly upOutput: string;
  /** Container name of a compose service (v1 `<project>_<svc>_1`, v2 `<project>-<svc>-1`). */
  container(service: string): string;
  /** `deploy-kit <command> --dir <dir> --project <project> [args]`. */
  kit(command: readonly string[]): ReturnType<typeof runDeployKit>;
  /** `deploy-kit down --volumes` and removal of the directory. */
  destroy(): Promise<void>;
}

function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m !== null) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return out;
}

async function editYaml(path: string, edit: (doc: Record<string, unknown>) => void): Promise<void> {
  const doc = load(await readFile(path, 'utf8')) as Record<string, unknown>;
  edit(doc);
  await writeFile(path, dump(doc, { lineWidth: -1 }));
}

/** Creates and starts a deployment; the caller must `destroy()` it (in `after`). */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const image = await serverImage();
  const dir = await mkdtemp(join(tmpdir(), `svc-it-${opts.name}-`));
  const project = `${RUN_ID}-${opts.name}`.toLowerCase().replace(/[^a-z0-9_-]/g, '');
  const kit = (command: readonly string[]): ReturnType<typeof runDeployKit> =>
    runDeployKit([...command, '--dir', dir, '--project', project], { cwd: dir, ...(opts.env ? { env: { ...opts.env } } : {}) });
  const destroy = async (): Promise<void> => {
    await kit(['down', '--volumes']);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await deployKit(['init', '--dir', dir, '--s3-host', TEST_HOSTS.s3, '--console-host', TEST_HOSTS.console, '--proxy', 'haproxy',
      '--tls', 'pem', '--nodes', String(opts.nodes ?? 1), '--drives-per-node', String(opts.drivesPerNode ?? 1),
      ...(opts.parity === undefined ? [] : ['--parity', `EC:${opts.parity}`]),
      '--image', image, '--proxy-image', BASE_IMAGES.haproxy], { cwd: dir });
    await deployKit(['cert', 'self-signed', '--dir', dir], { cwd: dir });
    if (opts.healthCheck !== undefined) {
      await editYaml(join(dir, 'deploy-kit.yaml'), (doc) => { doc['healthCheck'] = { ...(doc['healthCheck'] as object), ...opts.healthCheck }; });
    }
    await deployKit(['render', '--dir', dir], { cwd: dir });
    if (opts.independentNodes === true) {
      await editYaml(join(dir, 'compose.yaml'), (doc) => {
        const services = doc['services'] as Record<string, { command?: unknown; volumes?: string[] }>;
        for (const [name, svc] of Object.entries(services)) {
          if (!/^node\d+$/.test(name)) continue;
          const target = (svc.volumes?.[0] ?? ':/data').split(':')[1] ?? '/data';
          svc.command = ['server', '--console-address', ':9001', target];
        }
      });
    }
    await opts.beforeUp?.(dir);
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    const up = await kit(['up', '--publish-http', `127.0.0.1:${httpPort}`, '--publish-https', `127.0.0.1:${httpsPort}`,
      '--timeout', '120', ...(opts.independentNodes === true ? ['--no-render'] : [])]);
    if (up.code !== 0) throw new Error(`deploy-kit up exited ${up.code}\n${up.stdout}\n${up.stderr}`);
    const env = parseEnv(await readFile(join(dir, '.env'), 'utf8'));
    const ca = await readFile(join(dir, 'certs/ca.crt'), 'utf8');
    const v2 = docker(['ps', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}']).includes(`${project}-`);
    return {
      dir, project, hosts: TEST_HOSTS, httpPort, httpsPort, ca,
      accessKey: env['SVC_ACCESS_KEY'] ?? '', secretKey: env['SVC_SECRET_KEY'] ?? '', upOutput: up.stdout,
      container: (service) => (v2 ? `${project}-${service}-1` : `${project}_${service}_1`),
      kit, destroy,
    };
  } catch (err) {
    await destroy().catch(() => undefined);
    throw err;
  }
}
