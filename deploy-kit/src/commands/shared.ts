/**
 * Helpers every command may use (commands never import each other, STYLE.md §2): directory resolution,
 * global flags, option parsers that fail as usage errors, and terminal styling that respects NO_COLOR.
 */
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { Deps, Output } from '../io/index.js';

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
