import { execFile } from 'node:child_process';

/**
 * syncfs(2) for a drive's file system: every write made on it so far reaches stable storage. Node has no binding for
 * it, so coreutils' `sync --file-system` runs it in a child process (~5 ms of CPU per call here; the commit log calls
 * it twice per checkpoint, about once a second, commit-log.ts).
 *
 * Calls for one device share a run: a call joins a run that has not started yet (it will cover the caller's writes),
 * never one already running (it may have started before them).
 */
interface Lane {
  tail: Promise<void>;
  queued: Promise<void> | null;
}

const lanes = new Map<string, Lane>();

/** Syncs the file system holding `path`; `device` (st_dev) groups calls for drives on one file system. */
export function syncFileSystem(path: string, device: string): Promise<void> {
  let lane = lanes.get(device);
  if (lane === undefined) {
    lane = { tail: Promise.resolve(), queued: null };
    lanes.set(device, lane);
  }
  if (lane.queued !== null) return lane.queued;
  const l = lane;
  const run = l.tail.then(() => {
    l.queued = null;
    return runSync(path);
  });
  l.queued = run;
  l.tail = run.catch(() => undefined);
  return run;
}

function runSync(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sync', ['--file-system', path], { timeout: 120_000 }, (err, _out, stderr) => {
      if (err === null) resolve();
      else reject(new Error(`sync --file-system ${path} failed: ${stderr.trim() || err.message}`, { cause: err }));
    });
  });
}
