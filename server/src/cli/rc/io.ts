/** What a command may touch outside itself: the standard streams, the environment and stdin (gh's IOStreams). */
import type { Readable, Writable } from 'node:stream';

/** A writable terminal-ish stream; `isTTY` is true only for a real terminal. */
export interface OutStream {
  write(chunk: string | Uint8Array): boolean;
  isTTY?: boolean;
}

/** Streams and environment of one `rc` run; tests pass captured streams and a private environment. */
export interface RcIo {
  stdout: OutStream & Writable;
  stderr: OutStream;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams and environment (used by server/bin/rc.js through runRc). */
export function processIo(): RcIo {
  // `rc cat … | head` closes the pipe early: that is the reader's choice, not a failure worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/**
 * Colours only on a terminal and never with NO_COLOR set to anything (https://no-color.org: "when present and not
 * an empty string"; an empty value is treated like unset).
 */
export function useColor(io: RcIo): boolean {
  const noColor = io.env['NO_COLOR'];
  return io.stdout.isTTY === true && (noColor === undefined || noColor === '');
}

/** Writes one line to stdout. */
export function println(io: RcIo, line = ''): void {
  io.stdout.write(`${line}\n`);
}
