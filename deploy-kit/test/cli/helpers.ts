/** Black-box helpers: spawn the CLI from its TypeScript sources in a temp directory, as a user would run it. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The test entry (same as the bin, from sources). */
export const CLI_ENTRY = fileURLToPath(new URL('./cli-entry.ts', import.meta.url));
/** tsx's loader, resolved from here so the CLI can run from any working directory. */
export const TSX_LOADER = import.meta.resolve('tsx');

/** What a CLI run produced. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `deploy-kit <args>` with stdin closed (not a TTY), NO_COLOR unset unless given. */
export function runCli(args: readonly string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A fresh temp directory and its cleanup. */
export async function tempDir(prefix = 'dk-cli-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
