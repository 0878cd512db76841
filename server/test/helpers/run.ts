/** Runs an external program (a real S3 client) and returns its output; rejects with the output on failure. */
import { execFile } from 'node:child_process';

/** Result of a finished command. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args` with `env`, never through a shell; resolves with code/stdout/stderr (non-zero codes included). */
export function run(cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(cmd, [...args], { env: opts.env ?? process.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
  });
}

/** Like run() but throws with the command's output when it exits non-zero. */
export async function runOk(cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}
