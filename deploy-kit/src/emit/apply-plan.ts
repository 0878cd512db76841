/**
 * Applying a RenderPlan to a deployment directory (STYLE.md convention 9: planRender is pure, this is the effect).
 * Writes are atomic (temp file + rename) with the planned mode; `--dry-run` and `--diff` only compare.
 */
import { dirname, join } from 'node:path';
import type { Fs } from '../io/index.js';
import { unifiedDiff } from './line-diff.js';

/** A planned file, as RENDER's planRender returns it (path relative to the deployment directory). */
export interface PlanFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

/** How a planned file compares with the disk. */
export type FileStatus = 'new' | 'changed' | 'mode' | 'unchanged';

/** The comparison of one planned file with what is on disk. */
export interface FileComparison {
  readonly path: string;
  readonly mode: number;
  readonly size: number;
  readonly status: FileStatus;
  /** Mode on disk when the file exists. */
  readonly diskMode: number | undefined;
  /** Unified diff from disk to plan ('' when the content is equal). */
  readonly diff: string;
}

/** Compares every planned file with the deployment directory; touches nothing. */
export async function comparePlan(files: readonly PlanFile[], dir: string, fs: Fs): Promise<FileComparison[]> {
  const result: FileComparison[] = [];
  for (const f of files) {
    const abs = join(dir, f.path);
    const [text, info] = [await fs.readText(abs), await fs.stat(abs)];
    const size = Buffer.byteLength(f.content);
    if (text === undefined) {
      result.push({ path: f.path, mode: f.mode, size, status: 'new', diskMode: undefined,
        diff: unifiedDiff('', f.content, { oldLabel: '/dev/null', newLabel: `b/${f.path}` }) });
      continue;
    }
    const diff = unifiedDiff(text, f.content, { oldLabel: `a/${f.path}`, newLabel: `b/${f.path}` });
    const status: FileStatus = diff !== '' ? 'changed' : info?.mode !== f.mode ? 'mode' : 'unchanged';
    result.push({ path: f.path, mode: f.mode, size, status, diskMode: info?.mode, diff });
  }
  return result;
}

/** Writes the files that differ (content or mode) atomically and returns the comparison it acted on. */
export async function applyPlan(files: readonly PlanFile[], dir: string, fs: Fs): Promise<FileComparison[]> {
  const compared = await comparePlan(files, dir, fs);
  for (const [i, c] of compared.entries()) {
    if (c.status === 'unchanged') continue;
    const f = files[i] as PlanFile;
    const abs = join(dir, f.path);
    await fs.mkdirp(dirname(abs));
    await fs.writeAtomic(abs, f.content, f.mode);
  }
  return compared;
}
