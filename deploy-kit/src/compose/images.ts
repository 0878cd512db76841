/**
 * Local images: whether they exist (`docker image inspect`, so nothing is pulled when they do) and the server image
 * built from the repository's Dockerfile with a chosen base (air-gapped hosts pass a local one). The build context is
 * staged in a temporary directory holding only what the Dockerfile copies: server/bin, server/dist/src, the built console and the
 * server workspace's production dependency closure out of the installed node_modules.
 */
import { dirname, join } from 'node:path';
import { DeployKitError } from '../errors.js';
import type { Exec, Fs } from '../io/index.js';
import { tailLines } from './tool.js';

/** Default base of the server image for users with a registry (Node LTS, glibc, slim). */
export const DEFAULT_BASE_IMAGE = 'node:20-bookworm-slim';

/** True when the image exists locally. */
export async function imageExists(exec: Exec, image: string): Promise<boolean> {
  const r = await exec.run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 20_000 });
  if (r.notFound) throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', 'docker is not installed', { hint: 'install the Docker engine and CLI' });
  return r.exitCode === 0;
}

type PackageJson = { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };

async function readPackage(fs: Fs, dir: string): Promise<PackageJson | undefined> {
  const text = await fs.readText(join(dir, 'package.json'));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as PackageJson;
  } catch {
    return undefined;
  }
}

/** Node's lookup: `<from>/node_modules/<name>`, then each parent's, up to `root`. */
async function resolvePackage(fs: Fs, from: string, name: string, root: string): Promise<string | undefined> {
  for (let d = from; ; d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if ((await fs.stat(join(candidate, 'package.json'))) !== undefined) return candidate;
    if (d === root || d === dirname(d)) return undefined;
  }
}

/**
 * The installed directories (relative to `root`) of the production dependencies of the package in `pkgDir`,
 * transitively; missing optional dependencies (other platforms) are skipped, a missing required one is an error.
 */
export async function productionClosure(fs: Fs, root: string, pkgDir: string): Promise<string[]> {
  const seen = new Set<string>();
  const missing: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const pkg = await readPackage(fs, dir);
    const required = Object.keys(pkg?.dependencies ?? {});
    const optional = Object.keys(pkg?.optionalDependencies ?? {});
    for (const name of [...required, ...optional]) {
      const at = await resolvePackage(fs, dir, name, root);
      if (at === undefined) {
        if (required.includes(name) && !optional.includes(name)) missing.push(`${name} (needed by ${dir.slice(root.length + 1) || 'the root'})`);
        continue;
      }
      if (seen.has(at)) continue;
      seen.add(at);
      await visit(at);
    }
  };
  await visit(pkgDir);
  if (missing.length > 0) {
    throw new DeployKitError('DK_ERR_IO', 'the server\'s dependencies are not installed', { hint: 'run `npm ci` in the repository', details: missing });
  }
  // A package nested in another's node_modules is copied with its parent.
  const dirs = [...seen].map((d) => d.slice(root.length + 1)).sort();
  return dirs.filter((d) => !dirs.some((p) => p !== d && d.startsWith(`${p}/`)));
}

/** What to build. */
export interface ServerImageBuild {
  /** Repository root (holds Dockerfile, server/, node_modules/). */
  readonly repo: string;
  readonly tag: string;
  readonly baseImage: string;
}

async function copy(exec: Exec, from: string, to: string): Promise<void> {
  const r = await exec.run('cp', ['-a', from, to], { timeoutMs: 120_000 });
  if (r.notFound || r.exitCode !== 0) throw new DeployKitError('DK_ERR_IO', `copying ${from} failed`, { details: tailLines(r.stderr, 5) });
}

/** Stages the build context and runs `docker build`; throws DK_ERR_EXTERNAL_TOOL with the build's last lines on failure. */
export async function buildServerImage(fs: Fs, exec: Exec, b: ServerImageBuild): Promise<void> {
  for (const need of ['Dockerfile', 'server/bin/svc.js', 'server/dist/src/main.js', 'server/dist/console/index.html']) {
    if ((await fs.stat(join(b.repo, need))) === undefined) {
      throw new DeployKitError('DK_ERR_IO', `${join(b.repo, need)} is missing`, {
        hint: need.includes('dist') ? 'build the server and the console first: `sh scripts/setup.sh` in the repository' : 'run from a complete svc checkout',
      });
    }
  }
  const closure = await productionClosure(fs, b.repo, join(b.repo, 'server'));
  const ctx = await fs.makeTempDir('svc-image-');
  try {
    for (const d of ['server/dist', 'node_modules']) await fs.mkdirp(join(ctx, d));
    for (const f of ['Dockerfile', '.dockerignore', 'package.json']) {
      if ((await fs.stat(join(b.repo, f))) !== undefined) await copy(exec, join(b.repo, f), join(ctx, f));
    }
    await copy(exec, join(b.repo, 'server/package.json'), join(ctx, 'server/package.json'));
    await copy(exec, join(b.repo, 'server/bin'), join(ctx, 'server/bin'));
    await copy(exec, join(b.repo, 'server/dist/src'), join(ctx, 'server/dist/src'));
    await copy(exec, join(b.repo, 'server/dist/console'), join(ctx, 'server/dist/console'));
    // The server's C addons (scripts/build-native.sh): optional, the server runs their portable fallbacks without
    // them, but the Dockerfile copies the folder, so it is staged empty when absent.
    await fs.mkdirp(join(ctx, 'server/native'));
    if ((await fs.stat(join(b.repo, 'server/native/build'))) !== undefined) await copy(exec, join(b.repo, 'server/native/build'), join(ctx, 'server/native/build'));
    else await fs.mkdirp(join(ctx, 'server/native/build'));
    for (const d of closure) {
      await fs.mkdirp(dirname(join(ctx, d)));
      await copy(exec, join(b.repo, d), join(ctx, d));
    }
    const r = await exec.run('docker', ['build', '--build-arg', `BASE_IMAGE=${b.baseImage}`, '-t', b.tag, ctx], { timeoutMs: 600_000 });
    if (r.notFound || r.exitCode !== 0) {
      throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `docker build of ${b.tag} on ${b.baseImage} failed (exit ${r.exitCode})`, {
        hint: `check that the base image ${b.baseImage} exists locally or can be pulled, and provides node (glibc)`,
        details: tailLines(`${r.stdout}\n${r.stderr}`, 15),
      });
    }
  } finally {
    await fs.remove(ctx);
  }
}
