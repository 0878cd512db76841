import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExecaExec } from './execa-exec.js';
import { createInquirerPrompter } from './inquirer-prompter.js';
import { createNodeFs } from './node-fs.js';
import { createNodeDns, createNodeNet } from './node-net.js';
import type { Deps, KitPaths, Output } from './ports.js';

const PACKAGE_NAME = '@svc/deploy-kit';

/** The deploy-kit package folder, found upward from this file (works from src/ under tsx and from dist/src/). */
export function findPackageRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
      } catch {
        // not a readable package.json: keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package above ${start}`);
    dir = parent;
  }
}

/** deploy-kit's own version, from its package.json. */
export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(findPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/**
 * templates/ sits beside the package in the repository (deploy-kit/../templates); the Traefik schemas are shared
 * with the whole project at ../shared/schemas/traefik from the repository root (DOCKER.md §6: read, never copied).
 */
export function defaultKitPaths(env: Readonly<Record<string, string | undefined>>): KitPaths {
  const repoRoot = dirname(findPackageRoot());
  return {
    templatesDir: join(repoRoot, 'templates'),
    traefikSchemasDir: env['DEPLOY_KIT_TRAEFIK_SCHEMAS'] !== undefined && env['DEPLOY_KIT_TRAEFIK_SCHEMAS'] !== ''
      ? resolve(env['DEPLOY_KIT_TRAEFIK_SCHEMAS'])
      : resolve(repoRoot, '..', 'shared', 'schemas', 'traefik'),
  };
}

/** Colours only on a terminal, and never when NO_COLOR is set to anything non-empty (https://no-color.org). */
export function colorAllowed(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  const noColor = env['NO_COLOR'];
  return isTTY && (noColor === undefined || noColor === '') && env['TERM'] !== 'dumb';
}

/** Real process streams. Prompting needs both ends on a terminal. */
export function createProcessOutput(env: Readonly<Record<string, string | undefined>>): Output {
  const isTTY = process.stdin.isTTY === true && process.stdout.isTTY === true;
  return {
    stdout: (text) => { process.stdout.write(text); },
    stderr: (text) => { process.stderr.write(text); },
    isTTY,
    color: colorAllowed(process.stdout.isTTY === true, env),
  };
}

/** The real dependencies, built once by main.ts. */
export function createNodeDeps(env: Readonly<Record<string, string | undefined>>, cwd: string): Deps {
  return {
    fs: createNodeFs(),
    exec: createExecaExec(),
    clock: { now: () => new Date() },
    out: createProcessOutput(env),
    prompter: createInquirerPrompter(),
    dns: createNodeDns(),
    net: createNodeNet(),
    env,
    cwd,
    paths: defaultKitPaths(env),
  };
}
