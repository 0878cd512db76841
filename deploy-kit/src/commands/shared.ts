/**
 * Helpers every command may use (commands never import each other, STYLE.md §2): directory resolution,
 * global flags, option parsers that fail as usage errors, terminal styling that respects NO_COLOR, and the running
 * proxy container (`up` and `cert rotate` load certificates into it).
 */
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { runCompose, tailLines } from '../compose/index.js';
import type { ComposeProject } from '../compose/index.js';
import { DeployKitError } from '../errors.js';
import type { Deps, Exec, Output } from '../io/index.js';
import { SERVICE_NAMES } from '../providers/index.js';

/** Flags defined on the root program and visible to every command. */
export interface GlobalFlags {
  /** Print machine-readable JSON where the output is data. */
  readonly json: boolean;
}

/** The global flags as seen from a (sub)command. */
export function globalFlags(cmd: Command): GlobalFlags {
  return { json: cmd.optsWithGlobals()['json'] === true };
}

/** The absolute deployment directory: `--dir` relative to the working directory, default `.`. */
export function resolveDir(deps: Pick<Deps, 'cwd'>, dir: string | undefined): string {
  return resolve(deps.cwd, dir ?? '.');
}

/** A commander argument parser for a whole number in [min, max]; a bad value is a usage error (exit 2). */
export function intInRange(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`"${value}" is not a whole number.`);
    const n = Number(value.trim());
    if (n < min || n > max) throw new InvalidArgumentError(`${n} is outside ${min}..${max}.`);
    return n;
  };
}

/** The colours deploy-kit uses. */
export type Tone = 'red' | 'yellow' | 'green' | 'dim' | 'bold';

const SGR: Readonly<Record<Tone, [number, number]>> = { red: [31, 39], yellow: [33, 39], green: [32, 39], dim: [2, 22], bold: [1, 22] };

/** Wraps `text` in an ANSI colour only when the output allows colours (a TTY without NO_COLOR). */
export function paint(out: Pick<Output, 'color'>, tone: Tone, text: string): string {
  if (!out.color) return text;
  const [on, off] = SGR[tone];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** `mode` as the usual octal string, e.g. `600`. */
export function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}

/** The running proxy container of a compose project, or undefined when it is not running. */
export async function findProxyContainer(exec: Exec, project: ComposeProject): Promise<string | undefined> {
  const r = await runCompose(exec, project, ['ps', '-q', SERVICE_NAMES.proxy], 60_000);
  if (r.notFound) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `${project.tool.file} is not installed`, { hint: 'install Docker and compose' });
  }
  if (r.exitCode !== 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `cannot list the containers of project ${project.project} (exit ${r.exitCode})`, {
      hint: 'is the Docker engine running?', details: tailLines(r.stderr, 10),
    });
  }
  const id = r.stdout.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (id === undefined) return undefined;
  const running = await exec.run('docker', ['inspect', '-f', '{{.State.Running}}', id], { timeoutMs: 30_000 });
  return running.exitCode === 0 && running.stdout.trim() === 'true' ? id : undefined;
}
