/**
 * Runs the real `svc server` as a child process on temp drives, the way users run it, for end-to-end tests.
 * Listens on 127.0.0.1 with ephemeral ports; credentials are generated per run (never committed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = resolve(fileURLToPath(new URL('../../src/main.ts', import.meta.url)));
/** The built server's entry point (server/bin/svc.js), as users run it. */
export const BUILT_SVC = resolve(fileURLToPath(new URL('../../bin/svc.js', import.meta.url)));

/**
 * The node options users' servers run with: those on svc.js's first line (`#!/usr/bin/env -S node ...`, which says
 * why), also in the Dockerfile's ENTRYPOINT and scripts/start.sh (node-options.test.ts keeps the three equal).
 */
export const SVC_NODE_OPTIONS: readonly string[] = readFileSync(BUILT_SVC, 'utf8').split('\n', 1)[0]!
  .replace(/^#!\/usr\/bin\/env -S node\s*/, '').split(/\s+/).filter((o) => o !== '');

/** A started server process. */
export interface SvcProcess {
  url: string;
  consoleUrl: string | undefined;
  accessKey: string;
  secretKey: string;
  /** The temp directory holding drive1..N. */
  dir: string;
  drives: string[];
  proc: ChildProcess;
  output: () => string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit (crash simulation). */
  kill9(): Promise<void>;
  /** Remove the temp directory. */
  cleanup(): void;
}

/** Options for startSvc. */
export interface StartOptions {
  drives?: number;
  /** Reuse an existing directory (restart after a crash). */
  dir?: string;
  /** Added to the server's environment; a variable set to undefined is removed from it. */
  env?: Record<string, string | undefined>;
  credentials?: { accessKey: string; secretKey: string };
  consoleEnabled?: boolean;
  extraArgs?: string[];
  /** Run the built copy (server/bin/svc.js, as users do: no tsx loader in the process) instead of the sources. */
  built?: boolean;
  /** Extra node options for the server process (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

/**
 * Node arguments that run `svc` from source through tsx (as `npx svc` runs the built copy); the svc arguments
 * travel in the SVC_TEST_ARGS environment variable of the child.
 */
export function svcNodeArgs(): string[] {
  const script = `const m = await import(${JSON.stringify(MAIN)}); process.exit(await m.runSvc(['node', 'svc', ...JSON.parse(process.env.SVC_TEST_ARGS ?? '[]')]));`;
  return ['--import', 'tsx', '--input-type=module', '-e', script];
}

/** Starts a server and resolves once both listeners printed their URLs. */
export async function startSvc(opts: StartOptions = {}): Promise<SvcProcess> {
  const n = opts.drives ?? 4;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const drives = Array.from({ length: n }, (_, i) => join(dir, `drive${i + 1}`));
  for (const d of drives) mkdirSync(d, { recursive: true });
  const credentials = opts.credentials ?? { accessKey: `AK${randomBytes(9).toString('hex').toUpperCase()}`, secretKey: randomBytes(20).toString('hex') };
  const args = ['server', '--address', '127.0.0.1:0', '--console-address', '127.0.0.1:0', ...(opts.extraArgs ?? []),
    n === 1 ? join(dir, 'drive1') : join(dir, `drive{1...${n}}`)];
  const env = {
    ...process.env,
    SVC_ACCESS_KEY: credentials.accessKey,
    SVC_SECRET_KEY: credentials.secretKey,
    SVC_OBS_LOGGER_LEVEL: 'warn',
    // Fewer threads than server/bin/svc.js's 64: the suite runs many servers at once. The bench overrides it.
    UV_THREADPOOL_SIZE: '16',
    SVC_CONSOLE_ENABLE: opts.consoleEnabled === false ? 'false' : 'true',
    ...opts.env,
    SVC_TEST_ARGS: JSON.stringify(args),
  };
  const nodeArgs = [...SVC_NODE_OPTIONS, ...(opts.nodeArgs ?? []), ...(opts.built === true ? [BUILT_SVC, ...args] : svcNodeArgs())];
  const proc = spawn(process.execPath, nodeArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (c: Buffer) => { out += c.toString(); });
  proc.stderr?.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const { url, consoleUrl } = await new Promise<{ url: string; consoleUrl: string | undefined }>((resolveUrls, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc did not start within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const api = /S3 API:\s+(\S+)/.exec(out);
      const con = /Console:\s+(\S+)/.exec(out);
      if (api && con) {
        clearTimeout(timer);
        resolveUrls({ url: api[1] ?? '', consoleUrl: con[1]?.startsWith('http') ? con[1].replace(/\/svc\/console\/$/, '') : undefined });
      }
    };
    proc.stdout?.on('data', check);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`svc exited with ${code} before listening:\n${out}`)); });
  });
  return {
    url, consoleUrl, ...credentials, dir, drives, proc,
    output: () => out,
    async stop() { if (proc.exitCode === null) { proc.kill('SIGTERM'); await exited; } },
    async kill9() { if (proc.exitCode === null) { proc.kill('SIGKILL'); await exited; } },
    cleanup() { rmSync(dir, { recursive: true, force: true, maxRetries: 5 }); },
  };
}
