/**
 * The options of the bench commands (`npm run bench`, `bench:get`, `bench:ab`, …): `--help` (or `-h`) prints the
 * command's usage on stdout and exits 0, and an option the command does not know, a value left out or an argument too
 * many is one line on stderr and exit code 2 — before anything is started. Before, every bench command ignored what it
 * did not know: `npm run bench -- --help` started a four-minute run, and `--only smal` measured nothing, silently.
 */
import { parseBool } from '../src/config/load.js';
import type { ConfigError } from '../src/config/config-error.js';

/** What a command accepts. */
export interface OptionSpec {
  /** Options without a value. */
  flags?: readonly string[];
  /** Options followed by a value. */
  values?: readonly string[];
  /** Most arguments that are not options (default 0). */
  positional?: number;
  /** Arguments after `--` belong to another command (bench:ab passes them to bench:get): not checked here. */
  passThrough?: boolean;
  /** Only `--help` is looked for: the command checks its options itself (bench:ab, ab-args.ts). */
  helpOnly?: boolean;
}

/** The outcome of {@link checkArgs}: help asked for, a message for a bad argument, or nothing wrong. */
export type ArgsCheck = { help: true } | { error: string } | null;

/** Checks `argv` (the arguments after the script) against `spec`, without printing or exiting. */
export function checkArgs(spec: OptionSpec, argv: readonly string[]): ArgsCheck {
  const split = spec.passThrough === true ? argv.indexOf('--') : -1;
  const own = split < 0 ? argv : argv.slice(0, split);
  if (own.includes('--help') || own.includes('-h')) return { help: true };
  if (spec.helpOnly === true) return null;
  let positional = 0;
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (spec.flags?.includes(arg) === true) continue;
    if (spec.values?.includes(arg) === true) {
      const value = own[i + 1];
      if (value === undefined || value.startsWith('--')) return { error: `${arg} needs a value` };
      i++;
      continue;
    }
    if (arg.startsWith('-')) return { error: `unknown option ${arg} (--help lists the options)` };
    if (++positional > (spec.positional ?? 0)) return { error: `unexpected argument ${arg} (--help lists the options)` };
  }
  return null;
}

/**
 * Applies {@link checkArgs} to this process's arguments: prints `usage` and exits 0 on `--help`, prints
 * `<command>: <message>` on stderr and exits 2 on a bad argument, returns otherwise.
 */
export function checkOptions(command: string, usage: string, spec: OptionSpec, argv: readonly string[] = process.argv.slice(2)): void {
  const check = checkArgs(spec, argv);
  if (check === null) return;
  if ('help' in check) {
    process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`);
    process.exit(0);
  }
  process.stderr.write(`${command}: ${check.error}\n`);
  process.exit(2);
}

/** An option's value from the command line, or `fallback`; checkOptions has already refused one given without a value. */
export function optionValue(name: string, fallback: string, argv: readonly string[] = process.argv): string {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1]! : fallback;
}

/**
 * A whole number of at least 1 from the environment variable `name` (BENCH_MIB, BENCH_ROUNDS…), or `fallback` when
 * unset; anything else is one line on stderr and exit code 2, before anything starts. `what` names the unit.
 */
export function envCount(command: string, name: string, fallback: number, what = 'whole number', env: NodeJS.ProcessEnv = process.env): number {
  return count(command, name, env[name], fallback, what);
}

/** {@link envCount} for an option's value (`--keys 20000`): checkOptions has already refused one given without a value. */
export function optionCount(command: string, name: string, fallback: number, argv: readonly string[] = process.argv): number {
  const at = argv.indexOf(name);
  return count(command, name, at >= 0 ? argv[at + 1] : undefined, fallback, 'whole number');
}

function count(command: string, name: string, raw: string | undefined, fallback: number, what: string): number {
  const n = Number(raw ?? fallback);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`${command}: ${name} must be a ${what}, at least 1, not ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

/**
 * Refuses an SVC_KEY_INDEX the server would refuse (the drive layout of the servers a bench starts), with the same one
 * line and exit code 2 as a bad option, before anything starts: else the server exited at start and the bench printed a
 * stack with the server's output.
 */
export function checkLayoutEnv(command: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    parseBool(env.SVC_KEY_INDEX, 'SVC_KEY_INDEX', true);
  } catch (err) {
    process.stderr.write(`${command}: ${(err as ConfigError).message} (${(err as ConfigError).hint})\n`);
    process.exit(2);
  }
}
