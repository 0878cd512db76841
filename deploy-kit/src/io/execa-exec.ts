import { execa } from 'execa';
import type { Exec, ExecResult } from './ports.js';

/** External programs through execa (the only file importing it); a missing program is reported, not thrown. */
export function createExecaExec(): Exec {
  return {
    async run(file, args, opts = {}): Promise<ExecResult> {
      const r = await execa(file, [...args], {
        reject: false,
        stdin: 'ignore',
        timeout: opts.timeoutMs ?? 60_000,
        all: false,
        stripFinalNewline: false,
      });
      const notFound = (r.failed && (r as { code?: string }).code === 'ENOENT') || r.exitCode === undefined && /ENOENT/.test(String(r.message));
      return {
        notFound,
        exitCode: r.exitCode ?? (notFound ? 127 : 1),
        stdout: typeof r.stdout === 'string' ? r.stdout : '',
        stderr: typeof r.stderr === 'string' ? r.stderr : (r.timedOut ? 'timed out' : ''),
      };
    },
  };
}
