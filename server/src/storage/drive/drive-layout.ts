import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { changeLogFor, type ChangeLog } from './change-log.js';
import { ServerError } from '../../common/index.js';
import {
  DiskFullError, DiskNotFoundError, FaultyDiskError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError,
  VolumeNotFoundError,
} from './drive-errors.js';
import { SYS_DIR, assertSysPath, assertVolumeName, encodeKey } from './object-path.js';

/** The drive's format file, in its system area. */
export const FORMAT_FILE = 'format.json';
/** Areas of the system directory: temp writes, the trash, multipart uploads. */
export const TMP_DIR = 'tmp';
export const TRASH_DIR = 'trash';
export const MULTIPART_DIR = 'multipart';
export const SYS_AREAS = [TMP_DIR, TRASH_DIR, MULTIPART_DIR] as const;

/** The error code of a failed fs call. */
export function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Whether a drive is there: its format file present ('ok'), its root a directory without one, or neither. */
export async function rootState(guard: { format: string; root: string }): Promise<'ok' | 'missing' | 'unformatted'> {
  try {
    await access(guard.format);
    return 'ok';
  } catch {
    try {
      const s = await stat(guard.root);
      return s.isDirectory() ? 'unformatted' : 'missing';
    } catch {
      return 'missing';
    }
  }
}

/** Bucket checks started in this turn of the event loop, by bucket directory, shared by that turn's calls (volumeHere). */
const volumeChecks = new Map<string, Promise<boolean>>();

/**
 * Where things are on a local drive (volume, object, key and system paths, all checked) and how a failed fs call
 * becomes a typed drive error: what LocalDrive (local-drive.ts) and its listing calls (local-listing.ts) share.
 */
export class DriveLayout {
  readonly endpoint: string;
  readonly root: string;
  readonly sys: string;
  readonly tmp: string;
  /** The root as join normalizes it, with one '/' after it (volumeDir). */
  readonly #rootSlash: string;
  /** What a metadata read checks when the file is absent (ReadJob.guard). */
  readonly guard: { format: string; root: string };
  /** The keys this process changed lately on this drive (listing stamps). */
  readonly changes: ChangeLog;

  constructor(root: string) {
    this.endpoint = root;
    this.root = root;
    this.#rootSlash = join(root, '_').slice(0, -1);
    this.sys = join(root, SYS_DIR);
    this.tmp = join(this.sys, TMP_DIR);
    this.guard = { format: join(this.sys, FORMAT_FILE), root };
    this.changes = changeLogFor(root);
  }

  /** Maps an fs error to a typed drive error; ENOENT is checked against the root and format. */
  async mapError(err: unknown, path: string): Promise<Error> {
    if (err instanceof ServerError) return err;
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const state = await this.rootState();
      if (state !== 'ok') return state === 'missing' ? new DiskNotFoundError(this.endpoint) : new UnformattedDiskError(this.endpoint);
      return new FileNotFoundError(this.endpoint, path);
    }
    if (code === 'ENOSPC' || code === 'EDQUOT') return new DiskFullError(this.endpoint);
    if (err instanceof Error && 'code' in err && typeof code === 'string') {
      return new FaultyDiskError(this.endpoint, `${code} on ${path}`, { cause: err });
    }
    return err instanceof Error ? err : new FaultyDiskError(this.endpoint, String(err));
  }

  /** Throws the drive's error when the bucket `volume` has no directory here (VolumeNotFoundError, or the drive's own). */
  async volumeHere(volume: string): Promise<void> {
    if (!(await this.#volumeCheck(volume))) throw await this.absence(new VolumeNotFoundError(this.endpoint, volume));
  }

  /**
   * One stat per bucket and turn of the event loop: a listing page asks for every batch on every drive asked (20 stats
   * per page of 1,000 keys, ~8 % of a warm LIST's CPU), mostly in one turn. A check started earlier in the same turn
   * answers for the state at a moment no acknowledged change came between: buckets made or deleted here forget the
   * checks (forgetVolumeChecks) when they start and when they end, and no other answer was given in between.
   */
  #volumeCheck(volume: string): Promise<boolean> {
    const dir = this.volumeDir(volume);
    let check = volumeChecks.get(dir);
    if (check === undefined) {
      check = stat(dir).then((st) => st.isDirectory(), () => false);
      if (volumeChecks.size === 0) setImmediate(() => volumeChecks.clear());
      volumeChecks.set(dir, check);
    }
    return check;
  }

  /** Drops the shared bucket checks (a bucket made or deleted: the next call looks again). */
  forgetVolumeChecks(): void {
    volumeChecks.clear();
  }

  rootState(): Promise<'ok' | 'missing' | 'unformatted'> {
    return rootState(this.guard);
  }

  /**
   * The error of something absent (a bucket's directory, a key's record): the drive's own error when its root or
   * format is gone, else `absent`.
   */
  async absence(absent: Error): Promise<Error> {
    const state = await this.rootState();
    if (state === 'missing') return new DiskNotFoundError(this.endpoint);
    if (state === 'unformatted') return new UnformattedDiskError(this.endpoint);
    return absent;
  }

  volumeDir(volume: string): string {
    assertVolumeName(volume);
    // What join(root, volume) returns, without its normalizing scan per call (a 4 KiB PUT asks 8 times): volume
    // names hold no '/' and are never '.' or '..' (assertVolumeName).
    return `${this.#rootSlash}${volume}`;
  }

  sysPath(sysPath: string): string {
    assertSysPath(sysPath);
    return join(this.sys, sysPath);
  }

  /** Absolute object directory, and the hashed segments whose `.name` must exist. */
  objectDir(volume: string, key: string): { dir: string; named: { dir: string; original: string }[] } {
    let dir = this.volumeDir(volume);
    const named: { dir: string; original: string }[] = [];
    for (const seg of encodeKey(key)) {
      // Encoded names never hold '/' and are never '.' or '..' (object-path.ts), and volumeDir is normalized: a plain
      // concatenation is what join would return, without its normalizing scan (~2 % of a 4 KiB GET, issue 9).
      dir = `${dir}/${seg.name}`;
      if (seg.original !== undefined) named.push({ dir, original: seg.original });
    }
    return { dir, named };
  }

  /** Absolute directory of a key directory (`''` or ending in `/`). */
  keyDir(volume: string, dirKey: string): string {
    if (typeof dirKey !== 'string' || (dirKey !== '' && !dirKey.endsWith('/'))) {
      throw new InvalidDrivePathError(`invalid key directory: ${JSON.stringify(dirKey)}`);
    }
    return dirKey === '' ? this.volumeDir(volume) : this.objectDir(volume, dirKey.slice(0, -1)).dir;
  }
}
