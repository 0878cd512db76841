/**
 * Six local drives in one erasure set, EC:2, with bucket `b`, for engine tests that inject faults or count calls
 * through `wrap` (a Proxy over each LocalDrive: `call` is the drive's own method, bound). Removed after the test: the
 * storage lets go of its drives first (a key index is closed in its worker, which writes its files until then).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDrive, openStorage, type Drive } from '../../src/storage/index.js';

/** Replaces drive `i`'s (at `path`) method `prop` when it returns a function; undefined keeps the drive's own. */
export type DriveWrap = (
  i: number, prop: string | symbol, call: (...args: unknown[]) => Promise<unknown>, path: string,
) => ((...args: unknown[]) => unknown) | undefined;

export async function sixDrives(t: { after(fn: () => unknown): void }, wrap: DriveWrap = () => undefined) {
  const root = await mkdtemp(join(tmpdir(), 'svc-six-'));
  let close = async (): Promise<void> => {};
  t.after(async () => {
    await close();
    await rm(root, { recursive: true, force: true, maxRetries: 5 });
  });
  const paths = Array.from({ length: 6 }, (_, i) => join(root, `d${i + 1}`));
  for (const p of paths) await mkdir(p);
  const drives: Drive[] = paths.map((p, i) => new Proxy(new LocalDrive(p), {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const own = (v as (...a: unknown[]) => Promise<unknown>).bind(target);
      return wrap(i, prop, own, p) ?? own;
    },
  }));
  const st = await openStorage({ sets: [paths], drives: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
  close = () => st.close();
  await st.makeBucket('b');
  return { st, paths };
}
