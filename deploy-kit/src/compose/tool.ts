/**
 * Which compose is installed and how to call it: `docker compose` (v2 plugin) or `docker-compose` (v1), always
 * with `-p <project>` and `-f <file>` (DOCKER.md §4: the rendered files are the subset both accept, and v1 has no
 * top-level `name:`), and a failure of the tool as one typed error (exit 4).
 */
import { DeployKitError } from '../errors.js';
import type { Exec, ExecResult } from '../io/index.js';

/** The compose implementation found on this host. */
export interface ComposeTool {
  readonly kind: 'v2' | 'v1';
  /** Program to run: `docker` (v2, plugin) or `docker-compose` (v1). */
  readonly file: string;
  /** Arguments before the global compose flags: `['compose']` for v2, `[]` for v1. */
  readonly prefix: readonly string[];
  /** The version line the tool printed. */
  readonly version: string;
}

/** Finds compose v2, else v1; throws DK_ERR_EXTERNAL_TOOL when neither runs. */
export async function detectCompose(exec: Exec): Promise<ComposeTool> {
  const v2 = await exec.run('docker', ['compose', 'version'], { timeoutMs: 20_000 });
  if (!v2.notFound && v2.exitCode === 0) return { kind: 'v2', file: 'docker', prefix: ['compose'], version: v2.stdout.trim() };
  const v1 = await exec.run('docker-compose', ['version', '--short'], { timeoutMs: 20_000 });
  if (!v1.notFound && v1.exitCode === 0) return { kind: 'v1', file: 'docker-compose', prefix: [], version: `docker-compose ${v1.stdout.trim()}` };
  throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', 'neither `docker compose` (v2) nor `docker-compose` (v1) is installed', {
    hint: 'install the Docker compose plugin, or Debian\'s docker-compose package',
  });
}

/** A compose project: the tool, the project name and the compose file it runs. */
export interface ComposeProject {
  readonly tool: ComposeTool;
  readonly project: string;
  /** Absolute path of the compose file; relative paths inside it resolve against its directory. */
  readonly file: string;
}

/** The full argument list for `compose <args>` on a project. */
export function composeArgv(p: ComposeProject, args: readonly string[]): string[] {
  return [...p.tool.prefix, '-p', p.project, '-f', p.file, ...args];
}

/** Runs compose; a result is returned as data (callers decide what a non-zero exit means). */
export function runCompose(exec: Exec, p: ComposeProject, args: readonly string[], timeoutMs = 120_000): Promise<ExecResult> {
  return exec.run(p.tool.file, composeArgv(p, args), { timeoutMs });
}

/** Last lines of a tool's stderr (or stdout), for an error's details. */
export function tailLines(text: string, n: number): string[] {
  return text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').slice(-n);
}

/** Runs compose and throws DK_ERR_EXTERNAL_TOOL (exit 4) with the tool's last output lines when it fails. */
export async function mustCompose(exec: Exec, p: ComposeProject, args: readonly string[], timeoutMs = 120_000): Promise<ExecResult> {
  const r = await runCompose(exec, p, args, timeoutMs);
  if (r.notFound || r.exitCode !== 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `\`${[p.tool.file, ...composeArgv(p, args)].join(' ')}\` failed (exit ${r.exitCode})`, {
      hint: 'see the lines below; `deploy-kit logs` shows the services\' output',
      details: tailLines(`${r.stderr}\n${r.stdout}`, 15),
    });
  }
  return r;
}

/**
 * The default project name: the directory's base name in the characters both compose versions accept
 * (lower-case letters, digits, `-`, `_`), as compose itself derives it.
 */
export function defaultProjectName(dir: string): string {
  const base = dir.replace(/\/+$/, '').split('/').pop() ?? '';
  const name = base.toLowerCase().replace(/[^a-z0-9_-]/g, '').replace(/^[-_]+/, '');
  return name === '' ? 'svc' : name;
}

/** True when `name` is a valid compose project name. */
export function isProjectName(name: string): boolean {
  return /^[a-z0-9][a-z0-9_-]*$/.test(name);
}
