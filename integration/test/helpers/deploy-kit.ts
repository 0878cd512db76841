/** Runs the deploy-kit CLI from its TypeScript sources, as a user would (black box). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './env.js';

/** What a CLI run produced. */
export interface DeployKitResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const ENTRY = join(REPO_ROOT, 'deploy-kit/test/cli/cli-entry.ts');
const TSX = import.meta.resolve('tsx');

/** `deploy-kit <args>` with stdin closed and NO_COLOR set; resolves when it exits. */
export function runDeployKit(args: readonly string[], opts: { cwd: string; env?: Record<string, string> }): Promise<DeployKitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, ENTRY, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
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

/** Like {@link runDeployKit} but throws with the CLI's output when it does not exit 0. */
export async function deployKit(args: readonly string[], opts: { cwd: string; env?: Record<string, string> }): Promise<DeployKitResult> {
  const r = await runDeployKit(args, opts);
  if (r.code !== 0) throw new Error(`deploy-kit ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}
