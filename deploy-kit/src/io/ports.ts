/**
 * The ports through which deploy-kit touches the outside world (STYLE.md convention 11).
 * Real implementations live in node.ts, test doubles in testing.ts; commands receive them as {@link Deps}.
 */

/** What `stat` reports about a path. */
export interface FileInfo {
  readonly kind: 'file' | 'directory' | 'other';
  /** Permission bits only (`mode & 0o777`). */
  readonly mode: number;
  readonly size: number;
}

/** File system port; every path is absolute. Missing files are `undefined`, never exceptions. */
export interface Fs {
  /** UTF-8 text of a file, or undefined when it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** Writes through a temporary file in the same directory and a rename, so readers never see half a file. */
  writeAtomic(path: string, content: string, mode: number): Promise<void>;
  /** Creates the file only when absent; returns false (and writes nothing) when it exists. */
  writeNew(path: string, content: string, mode: number): Promise<boolean>;
  stat(path: string): Promise<FileInfo | undefined>;
  /** Creates the directory and its parents. */
  mkdirp(path: string, mode?: number): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  /** Names in a directory, or [] when it does not exist. */
  list(path: string): Promise<string[]>;
  /** A new private directory under the system temp folder. */
  makeTempDir(prefix: string): Promise<string>;
  /** Removes a file or a directory tree; absent is fine. */
  remove(path: string): Promise<void>;
}

/** Result of an external command; non-zero exits are data, not exceptions. */
export interface ExecResult {
  /** The program was not found on PATH (nothing ran). */
  readonly notFound: boolean;
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs external programs (haproxy, docker). */
export interface Exec {
  run(file: string, args: readonly string[], opts?: { timeoutMs?: number }): Promise<ExecResult>;
}

/** Time source, so certificate dates can be tested. */
export interface Clock {
  now(): Date;
}

/** The terminal: text sinks plus what they are attached to. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stdin and stdout are a terminal, so prompting is allowed. */
  readonly isTTY: boolean;
  /** ANSI colours allowed (a TTY and no NO_COLOR). */
  readonly color: boolean;
}

/** One choice of a select prompt. */
export interface Choice<T extends string> {
  readonly value: T;
  readonly name?: string;
}

/** Interactive questions; cancelling (Ctrl-C) rejects with a DeployKitError DK_ERR_CANCELLED. */
export interface Prompter {
  input(q: { message: string; default?: string; validate?: (value: string) => true | string }): Promise<string>;
  select<T extends string>(q: { message: string; choices: readonly Choice<T>[]; default?: T }): Promise<T>;
  confirm(q: { message: string; default?: boolean }): Promise<boolean>;
}

/** Outcome of resolving one hostname. */
export type LookupResult =
  | { readonly ok: true; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly code: string };

/** Name resolution and this host's own addresses. */
export interface Dns {
  lookup(host: string): Promise<LookupResult>;
  /** Every address of this host's interfaces (loopback included). */
  localAddresses(): readonly string[];
}

/** Whether a TCP port can be bound on this host. */
export type PortState = 'free' | 'busy' | 'denied';

/** Local network probes. */
export interface Net {
  probePort(port: number): Promise<PortState>;
}

/** Paths deploy-kit finds relative to its own package. */
export interface KitPaths {
  /** The repository's templates/ folder. */
  readonly templatesDir: string;
  /** The Traefik JSON Schemas folder (../shared/schemas/traefik from the repository root). */
  readonly traefikSchemasDir: string;
}

/** Everything a command's run function may touch (the gh `Factory` of STYLE.md convention 10). */
export interface Deps {
  readonly fs: Fs;
  readonly exec: Exec;
  readonly clock: Clock;
  readonly out: Output;
  readonly prompter: Prompter;
  readonly dns: Dns;
  readonly net: Net;
  /** The process environment, read only here (STYLE.md convention 8). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly paths: KitPaths;
}
