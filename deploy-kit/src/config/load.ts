/**
 * deploy-kit.yaml on disk → raw value (js-yaml) → parseSpec (STYLE.md convention 8). The only effectful file of config/:
 * it reads through the Fs port and turns problems into one DeployKitError listing all of them.
 */
import { join } from 'node:path';
import { load } from 'js-yaml';
import { DeployKitError } from '../errors.js';
import type { Fs } from '../io/index.js';
import { SPEC_FILE_NAME, parseSpec } from './index.js';
import type { DeploymentSpec, Problem } from './index.js';

/** The raw content of a deployment's spec file. */
export interface RawSpecFile {
  readonly path: string;
  readonly raw: unknown;
}

/** A validated spec and where it came from. */
export interface LoadedSpec {
  /** Absolute deployment directory (relative paths in the spec are relative to it). */
  readonly dir: string;
  readonly path: string;
  readonly spec: DeploymentSpec;
}

/** One problem as one line: `hosts.console: same hostname as hosts.s3 (fix: …)`. */
export function problemLine(p: Problem): string {
  return `${p.path === '' ? '(spec)' : p.path}: ${p.message}${p.hint === undefined ? '' : ` (fix: ${p.hint})`}`;
}

/** Reads and YAML-parses `<dir>/deploy-kit.yaml`; a missing file or a YAML syntax error is a DeployKitError (exit 2). */
export async function readRawSpec(fs: Fs, dir: string): Promise<RawSpecFile> {
  const path = join(dir, SPEC_FILE_NAME);
  const text = await fs.readText(path);
  if (text === undefined) {
    throw new DeployKitError('DK_ERR_SPEC_NOT_FOUND', `no ${SPEC_FILE_NAME} in ${dir}`, {
      hint: 'run `deploy-kit init` there first, or pass --dir <deployment directory>',
    });
  }
  try {
    // JSON_SCHEMA-free default load: plain YAML 1.2 core types; no custom tags can run code.
    return { path, raw: load(text) };
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new DeployKitError('DK_ERR_SPEC_INVALID', `${SPEC_FILE_NAME} is not valid YAML: ${message}`, {
      hint: `fix the syntax of ${path}`,
      cause: err,
    });
  }
}

/** Loads and validates the spec of a deployment directory, reporting every problem at once. */
export async function loadSpec(fs: Fs, dir: string): Promise<LoadedSpec> {
  const { path, raw } = await readRawSpec(fs, dir);
  const { spec, problems } = parseSpec(raw);
  if (spec === undefined || problems.length > 0) {
    throw new DeployKitError('DK_ERR_SPEC_INVALID', `${SPEC_FILE_NAME} has ${problems.length} problem${problems.length === 1 ? '' : 's'}`, {
      hint: `edit ${path} and run the command again`,
      details: problems.map(problemLine),
    });
  }
  return { dir, path, spec };
}
