/**
 * Runs the real `rc` as a child process from source (through tsx, as server/bin/rc.js runs the built copy), with a
 * private configuration directory per test so nothing touches the user's ~/.config/rc.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type RunResult } from '../helpers/run.js';

const ENTRY = resolve(fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url)));

/** Node arguments that run `rc` from source; the rc arguments travel in RC_TEST_ARGS. */
export function rcNodeArgs(): string[] {
  const script = `const m = await import(${JSON.stringify(ENTRY)}); process.exitCode = await m.runRc(['node', 'rc', ...JSON.parse(process.env.RC_TEST_ARGS ?? '[]')]);`;
  return ['--import', 'tsx', '--input-type=module', '-e', script];
}

/** An `rc` bound to one configuration directory. */
export interface RcRunner {
  configDir: string;
  /** Runs `rc args...`; resolves with code/stdout/stderr. */
  rc(args: string[], env?: Record<string, string>): Promise<RunResult>;
  /** Like rc() but throws with the output when the exit code is not 0. */
  rcOk(args: string[], env?: Record<string, string>): Promise<RunResult>;
  /** The environment a child `rc` gets (for `script -c` command lines). */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A runner with a fresh RC_CONFIG_DIR (`<tmp>/config`, not yet created, so rc creates it with mode 700). */
export function rcRunner(): RcRunner {
  const base = mkdtempSync(join(tmpdir(), 'rc-test-'));
  const configDir = join(base, 'config');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, RC_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra });
  const rc = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, rcNodeArgs(), { env: { ...env(extra), RC_TEST_ARGS: JSON.stringify(args) }, timeoutMs: 300_000 });
  return {
    configDir, rc, env,
    async rcOk(args, extra) {
      const r = await rc(args, extra);
      if (r.code !== 0) throw new Error(`rc ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r;
    },
    cleanup: () => rmSync(base, { recursive: true, force: true, maxRetries: 5 }),
  };
}
