import { dirname, resolve } from 'node:path';
import { DeployKitError } from '../errors.js';
import type { Clock, Deps, Dns, Exec, ExecResult, FileInfo, Fs, LookupResult, Net, Output, PortState, Prompter } from './ports.js';

/** An in-memory file system with modes, for run-function tests (STYLE.md convention 11, gh `iostreams.Test()`). */
export interface MemoryFs extends Fs {
  /** Every file: absolute path → content and mode. */
  readonly files: Map<string, { content: string; mode: number }>;
  readonly dirs: Set<string>;
}

/** Creates a {@link MemoryFs}, optionally seeded with files (mode 0o644 unless given). */
export function createMemoryFs(seed: Readonly<Record<string, string | { content: string; mode: number }>> = {}): MemoryFs {
  const files = new Map<string, { content: string; mode: number }>();
  const dirs = new Set<string>(['/']);
  const addDirs = (p: string): void => {
    for (let d = dirname(p); !dirs.has(d); d = dirname(d)) dirs.add(d);
  };
  for (const [p, v] of Object.entries(seed)) {
    const abs = resolve(p);
    files.set(abs, typeof v === 'string' ? { content: v, mode: 0o644 } : { ...v });
    addDirs(abs);
  }
  const needParent = (p: string): void => {
    if (!dirs.has(dirname(p))) {
      throw Object.assign(new Error(`ENOENT: no such directory ${dirname(p)}`), { code: 'ENOENT' });
    }
  };
  return {
    files,
    dirs,
    async readText(path) {
      return files.get(resolve(path))?.content;
    },
    async writeAtomic(path, content, mode) {
      const abs = resolve(path);
      needParent(abs);
      files.set(abs, { content, mode });
    },
    async writeNew(path, content, mode) {
      const abs = resolve(path);
      needParent(abs);
      if (files.has(abs)) return false;
      files.set(abs, { content, mode });
      return true;
    },
    async stat(path): Promise<FileInfo | undefined> {
      const abs = resolve(path);
      const f = files.get(abs);
      if (f !== undefined) return { kind: 'file', mode: f.mode, size: Buffer.byteLength(f.content) };
      return dirs.has(abs) ? { kind: 'directory', mode: 0o755, size: 0 } : undefined;
    },
    async mkdirp(path) {
      const abs = resolve(path);
      addDirs(abs);
      dirs.add(abs);
    },
    async chmod(path, mode) {
      const f = files.get(resolve(path));
      if (f === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      f.mode = mode;
    },
    async list(path) {
      const abs = resolve(path);
      const names = new Set<string>();
      for (const p of [...files.keys(), ...dirs]) {
        if (p !== abs && dirname(p) === abs) names.add(p.slice(abs === '/' ? 1 : abs.length + 1));
      }
      return [...names].sort();
    },
    async makeTempDir(prefix) {
      let n = 0;
      while (dirs.has(`/tmp/${prefix}${n}`)) n++;
      addDirs(`/tmp/${prefix}${n}`);
      dirs.add(`/tmp/${prefix}${n}`);
      return `/tmp/${prefix}${n}`;
    },
    async remove(path) {
      const abs = resolve(path);
      for (const p of [...files.keys()]) if (p === abs || p.startsWith(`${abs}/`)) files.delete(p);
      for (const d of [...dirs]) if (d === abs || d.startsWith(`${abs}/`)) dirs.delete(d);
    },
  };
}

/** Captured terminal output. */
export interface CapturedOutput extends Output {
  readonly out: string[];
  readonly err: string[];
  stdoutText(): string;
  stderrText(): string;
}

/** An {@link Output} that records what was written; not a TTY and no colours unless asked. */
export function createCapturedOutput(opts: { isTTY?: boolean; color?: boolean } = {}): CapturedOutput {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    isTTY: opts.isTTY ?? false,
    color: opts.color ?? false,
    stdout: (t) => { out.push(t); },
    stderr: (t) => { err.push(t); },
    stdoutText: () => out.join(''),
    stderrText: () => err.join(''),
  };
}

/** One recorded call of a {@link RecordingExec}. */
export interface ExecCall {
  readonly file: string;
  readonly args: readonly string[];
}

/** An {@link Exec} that records calls and answers from a handler (default: program not found). */
export interface RecordingExec extends Exec {
  readonly calls: ExecCall[];
}

/** Result helpers for exec handlers. */
export const execResults = {
  ok: (stdout = ''): ExecResult => ({ notFound: false, exitCode: 0, stdout, stderr: '' }),
  fail: (exitCode: number, stderr: string): ExecResult => ({ notFound: false, exitCode, stdout: '', stderr }),
  notFound: (): ExecResult => ({ notFound: true, exitCode: 127, stdout: '', stderr: '' }),
} as const;

/** Creates a {@link RecordingExec}. */
export function createRecordingExec(handler: (call: ExecCall) => ExecResult = () => execResults.notFound()): RecordingExec {
  const calls: ExecCall[] = [];
  return {
    calls,
    async run(file, args) {
      const call = { file, args: [...args] };
      calls.push(call);
      return handler(call);
    },
  };
}

/** Scripted answers, consumed in order; each prompt's message is recorded. Running out of answers is a cancellation. */
export interface ScriptedPrompter extends Prompter {
  readonly asked: string[];
}

/** Creates a {@link ScriptedPrompter}; answers are strings for input/select and booleans for confirm. */
export function createScriptedPrompter(answers: ReadonlyArray<string | boolean>): ScriptedPrompter {
  const queue = [...answers];
  const asked: string[] = [];
  const next = (message: string): string | boolean => {
    asked.push(message);
    if (queue.length === 0) throw new DeployKitError('DK_ERR_CANCELLED', `no scripted answer for "${message}"`);
    return queue.shift() as string | boolean;
  };
  return {
    asked,
    async input(q) {
      const a = next(q.message);
      const value = a === '' && q.default !== undefined ? q.default : String(a);
      const verdict = q.validate?.(value) ?? true;
      if (verdict !== true) throw new Error(`scripted answer "${value}" rejected: ${verdict}`);
      return value;
    },
    async select(q) {
      const a = String(next(q.message));
      const hit = q.choices.find((c) => c.value === a);
      if (hit === undefined) throw new Error(`scripted answer "${a}" is not a choice of "${q.message}"`);
      return hit.value;
    },
    async confirm(q) {
      const a = next(q.message);
      return typeof a === 'boolean' ? a : a === 'y';
    },
  };
}

/** A {@link Dns} answering from a table; unknown names are NXDOMAIN (ENOTFOUND). */
export function createTableDns(table: Readonly<Record<string, readonly string[]>>, local: readonly string[] = ['127.0.0.1', '::1']): Dns {
  return {
    async lookup(host): Promise<LookupResult> {
      const a = table[host];
      return a === undefined ? { ok: false, code: 'ENOTFOUND' } : { ok: true, addresses: a };
    },
    localAddresses: () => local,
  };
}

/** A {@link Net} whose listed ports are busy. */
export function createFakeNet(busy: Readonly<Record<number, PortState>> = {}): Net {
  return { probePort: async (port) => busy[port] ?? 'free' };
}

/** A {@link Clock} stuck at `at`. */
export function createFixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}

/** Test dependencies: in-memory everything, overridable piece by piece. */
export function createTestDeps(overrides: Partial<Deps> = {}): Deps & { out: CapturedOutput } {
  return {
    fs: createMemoryFs(),
    exec: createRecordingExec(),
    clock: { now: () => new Date() },
    prompter: createScriptedPrompter([]),
    dns: createTableDns({}),
    net: createFakeNet(),
    env: {},
    cwd: '/work/deploy',
    paths: { templatesDir: '/kit/templates', traefikSchemasDir: '/kit/schemas/traefik' },
    ...overrides,
    out: (overrides.out as CapturedOutput | undefined) ?? createCapturedOutput(),
  };
}
