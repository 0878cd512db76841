import { execFile } from 'node:child_process';
import { SyncLanes } from './sync-lanes.js';

/**
 * syncfs(2) for a drive's file system: every write made on it so far reaches stable storage. Node has no binding for
 * it, so coreutils' `sync --file-system` runs it in a child process (~5 ms of CPU per call here; the commit log calls
 * it twice per checkpoint, about once a second, commit-log.ts).
 *
 * Calls for one device share runs (sync-lanes.ts).
 */
const lanes = new SyncLanes();

/** Syncs the file system holding `path`; `device` (st_dev) groups calls for drives on one file system. */
export function syncFileSystem(path: string, device: string): Promise<void> {
  return lanes.run(device, () => runSync(path));
}

function runSync(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sync', ['--file-system', path], { timeout: 120_000 }, (err, _out, stderr) => {
      if (err === null) resolve();
      else reject(new Error(`sync --file-system ${path} failed: ${stderr.trim() || err.message}`, { cause: err }));
    });
  });
}
