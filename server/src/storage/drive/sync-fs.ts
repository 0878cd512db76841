import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SyncLanes } from './sync-lanes.js';

/**
 * syncfs(2) for a drive's file system: every write made on it so far reaches stable storage. Node has no binding for
 * it, so coreutils' `sync --file-system` runs it (the commit log calls it twice per checkpoint, every half second per
 * drive while small objects are written, commit-log.ts).
 *
 * Run from node itself, each call forked the server: its page tables copied, then copy-on-write faults in the server
 * until the child exec'd. During 4 KiB PUTs at 16 in flight that was ~2 % of the event loop's time in `spawn` alone
 * (`--cpu-prof`), plus the kernel's copy of the page tables (docs/performance.md, eighteenth session). So a small shell
 * per file system, started on first use and kept, runs the calls: a call is a line on its stdin (the path), and the
 * shell answers one line per call, in order ("ok", or "error: " and what `sync` said). The shell's own forks are
 * cheap. A path with a newline in it (which the line protocol cannot carry) is synced by a child of its own, as before.
 *
 * Calls for one device share runs (sync-lanes.ts), and run one at a time in that device's shell.
 */
const lanes = new SyncLanes();
const shells = new Map<string, SyncShell>();

/** Longest a sync may take before it fails and its shell is replaced (a hung disk). */
const SYNC_TIMEOUT_MS = 120_000;

/** Syncs the file system holding `path`; `device` (st_dev) groups calls for drives on one file system. */
export function syncFileSystem(path: string, device: string): Promise<void> {
  return lanes.run(device, () => {
    if (path.includes('\n')) return syncOnce(path);
    let shell = shells.get(device);
    if (shell === undefined) shells.set(device, (shell = new SyncShell()));
    return shell.sync(path);
  });
}

/**
 * Ends every sync shell once it has answered what it was asked (a server stopping): without this they end only when
 * they see their stdin close after the process is gone, and a `sync` still running then holds the file system a moment
 * longer (`umount` right after the server's exit answered "target is busy", bench:ab). A later call starts a new shell.
 */
export async function stopSyncShells(): Promise<void> {
  await Promise.all([...shells.values()].map((s) => s.stop()));
}

function syncOnce(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sync', ['--file-system', path], { timeout: SYNC_TIMEOUT_MS }, (err, _out, stderr) => {
      if (err === null) resolve();
      else reject(new Error(`sync --file-system ${path} failed: ${stderr.trim() || err.message}`, { cause: err }));
    });
  });
}

// One line in, one line out, per call. `--` keeps a path that starts with "-" a path.
const SCRIPT = 'while IFS= read -r p; do if e=$(sync --file-system -- "$p" 2>&1); then echo ok; '
  + 'else printf "error: %s\\n" "$(printf %s "$e" | tr "\\n" " ")"; fi; done';

interface Waiter {
  path: string;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** A `sh` running one device's syncs, restarted on the next call after it failed. */
export class SyncShell {
  #child: ChildProcessWithoutNullStreams | undefined;
  readonly #waiting: Waiter[] = [];
  readonly #env: NodeJS.ProcessEnv;
  /** Set by stop() while calls are still waiting: lets the shell go once the last is answered. */
  #onIdle: (() => void) | undefined;

  /** `env`: the shell's environment (its PATH finds `sync`). */
  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  /** Syncs the file system holding `path` (which must not contain a newline). */
  sync(path: string): Promise<void> {
    const child = this.#child ?? this.#start();
    return new Promise((resolve, reject) => {
      // Referenced: a sync in progress keeps the process alive until it answers.
      const timer = setTimeout(() => this.#fail(new Error(`sync --file-system ${path} did not finish within ${SYNC_TIMEOUT_MS / 1000} s`)), SYNC_TIMEOUT_MS);
      this.#waiting.push({ path, resolve, reject, timer });
      child.stdin.write(`${path}\n`);
    });
  }

  /**
   * Closes the shell's stdin once no call waits on it (calls made meanwhile are answered too), and the shell exits.
   * Resolves once it has (killed after `ms`). A call after that starts a new shell.
   */
  stop(ms = 5000): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      // Once nothing waits on it, the shell is let go: a call after that starts a new one instead of writing to it.
      const release = (): void => {
        this.#onIdle = undefined;
        if (this.#child === child) this.#child = undefined;
        child.stdin.end();
      };
      if (this.#waiting.length === 0) release();
      else this.#onIdle = release;
    });
  }

  /** The shell's pid while it runs (tests). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  #start(): ChildProcessWithoutNullStreams {
    const child = spawn('sh', ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'], env: this.#env });
    this.#child = child;
    const gone = (err: Error): void => {
      if (this.#child === child) this.#fail(err);
    };
    child.on('error', (err) => gone(new Error(`the sync shell could not run: ${err.message}`, { cause: err })));
    child.on('exit', (code, signal) => gone(new Error(`the sync shell exited (${signal ?? code})`)));
    child.stdin.on('error', () => undefined); // A shell gone: 'exit' above fails the calls.
    child.stderr.resume();
    createInterface({ input: child.stdout }).on('line', (line) => {
      // A shell already replaced answers nothing: its calls were failed with it.
      if (this.#child !== child) return;
      const w = this.#waiting.shift();
      if (w === undefined) return;
      clearTimeout(w.timer);
      if (line === 'ok') w.resolve();
      else w.reject(new Error(`sync --file-system ${w.path} failed: ${line.replace(/^error: /, '').trim()}`));
      if (this.#waiting.length === 0) this.#onIdle?.();
    });
    // An idle shell does not keep the process alive; it ends with its stdin when the process exits.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.();
    return child;
  }

  /** Fails every call waiting on the current shell and lets the next call start a new one. */
  #fail(err: Error): void {
    const child = this.#child;
    this.#child = undefined;
    this.#onIdle = undefined;
    child?.kill('SIGKILL');
    for (const w of this.#waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
