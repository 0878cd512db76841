import { constants, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { ShardWriter } from './drive.js';
import { LocalShardWriter } from './local-shard-io.js';

/**
 * Shard files written with O_DIRECT (issue 9: on this class of VM buffered writes + fsync reach
 * ~350 MiB/s because page-cache write-back is the bottleneck, O_DIRECT 2.3 GiB/s; MinIO writes
 * shards the same way). O_DIRECT needs the memory address, file offset and length of every write
 * aligned to the device's logical block; the shard layout (32-byte hash ‖ chunk) is not, so
 * appends are copied into aligned staging buffers and written STAGE bytes at a time, one write in
 * flight while the next stage fills. The last partial stage is written padded to ALIGN and the
 * file is truncated back to its logical length before fdatasync: the bytes on disk are exactly
 * those a buffered writer would have produced.
 *
 * JS cannot see a Buffer's address, so each staging buffer is allocated with ALIGN bytes of slack
 * and its aligned offset is found once by probing (the kernel rejects a misaligned O_DIRECT write
 * with EINVAL before touching the file); buffers are then pooled per drive. When the file system
 * refuses O_DIRECT (older tmpfs, some FUSE), the drive's shard files are written buffered.
 */

/** Alignment of every direct write (covers 512 and 4096-byte logical blocks). */
const ALIGN = 4096;
/** Bytes per direct write. */
const STAGE = 1 << 20;
/** Free stages kept for reuse, over all drives (1 MiB each). */
const POOL_MAX = 16;

/** Free aligned stages; each is aligned for the drive it was probed on (drives may differ in alignment). */
const free: { drive: string; buf: Buffer }[] = [];
/** Per drive: whether its file system accepts O_DIRECT writes (absent until known). */
const directOk = new Map<string, boolean>();

function isEinval(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EINVAL';
}

/**
 * A new stage aligned for `fh`, or null when no offset is accepted. The aligned offset is the first
 * at which an O_DIRECT write of ALIGN bytes at file offset `at` succeeds: misaligned attempts fail
 * with EINVAL before any I/O (so the synchronous scan costs microseconds), and `at` is where the
 * caller writes next, so the probe bytes are overwritten, or truncated away at close.
 */
function alignedStage(fh: FileHandle, at: number): Buffer | null {
  const raw = Buffer.allocUnsafeSlow(STAGE + ALIGN);
  for (let off = 0; off < ALIGN; off += 8) {
    try {
      writeSync(fh.fd, raw, off, ALIGN, at);
    } catch (err) {
      if (isEinval(err)) continue;
      throw err;
    }
    return raw.subarray(off, off + STAGE);
  }
  return null;
}

/** A free stage of `drive`, or a new one aligned for `fh` (see alignedStage for `at`). */
function acquire(drive: string, fh: FileHandle, at: number): Buffer | null {
  for (let i = free.length - 1; i >= 0; i--) {
    if (free[i]!.drive === drive) return free.splice(i, 1)[0]!.buf;
  }
  return alignedStage(fh, at);
}

function release(drive: string, buf: Buffer | null): void {
  if (buf === null) return;
  if (free.length >= POOL_MAX) free.shift();
  free.push({ drive, buf });
}

/**
 * Opens a new shard file (truncating) for sequential appends; O_DIRECT when the file system of
 * drive `driveKey` accepts it. `map` turns I/O errors into drive errors.
 */
export async function openShardWriter(path: string, driveKey: string, map: (err: unknown) => Promise<Error>): Promise<ShardWriter> {
  if (directOk.get(driveKey) !== false) {
    let fh: FileHandle | undefined;
    try {
      fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT, 0o666);
      const first = acquire(driveKey, fh, 0);
      if (first !== null) {
        directOk.set(driveKey, true);
        return new DirectShardWriter(fh, driveKey, first, map);
      }
    } catch (err) {
      await fh?.close().catch(() => undefined);
      if (!isEinval(err)) throw err;
    }
    await fh?.close().catch(() => undefined);
    directOk.set(driveKey, false);
  }
  return new LocalShardWriter(await open(path, 'w'), map);
}

/** ShardWriter over an O_DIRECT file; see the module comment. */
class DirectShardWriter implements ShardWriter {
  readonly #fh: FileHandle;
  readonly #drive: string;
  readonly #map: (err: unknown) => Promise<Error>;
  /** Stage being filled, and the one last written (reused once its write completed). */
  #stage: Buffer | null;
  #spare: Buffer | null = null;
  #fill = 0;
  /** Bytes handed to the kernel: a multiple of STAGE. */
  #flushed = 0;
  #pending: Promise<void> | null = null;
  #closed = false;

  constructor(fh: FileHandle, drive: string, first: Buffer, map: (err: unknown) => Promise<Error>) {
    this.#fh = fh;
    this.#drive = drive;
    this.#stage = first;
    this.#map = map;
  }

  async write(buffers: readonly Uint8Array[]): Promise<void> {
    try {
      if (this.#closed) throw new Error('write after close');
      for (const b of buffers) {
        let off = 0;
        while (off < b.byteLength) {
          const stage = this.#stage ?? this.#next();
          const take = Math.min(STAGE - this.#fill, b.byteLength - off);
          stage.set(b.subarray(off, off + take), this.#fill);
          this.#fill += take;
          off += take;
          if (this.#fill === STAGE) await this.#flushStage();
        }
      }
    } catch (err) {
      throw await this.#map(err);
    }
  }

  /** A stage to fill: the one whose write completed, or one from the drive's pool. */
  #next(): Buffer {
    const s = this.#spare ?? acquire(this.#drive, this.#fh, this.#flushed);
    if (s === null) throw new Error('O_DIRECT write refused for every staging offset');
    this.#spare = null;
    this.#stage = s;
    return s;
  }

  /** Starts writing the full stage; waits for the previous write first (one write in flight per file). */
  async #flushStage(): Promise<void> {
    await this.#settle();
    const stage = this.#stage!;
    const at = this.#flushed;
    this.#flushed += STAGE;
    this.#fill = 0;
    this.#stage = null;
    const p = this.#writeAll(stage, STAGE, at).then(() => {
      if (this.#closed) release(this.#drive, stage);
      else this.#spare = stage;
    });
    p.catch(() => undefined);
    this.#pending = p;
  }

  async #writeAll(b: Buffer, length: number, at: number): Promise<void> {
    let done = 0;
    while (done < length) done += (await this.#fh.write(b, done, length - done, at + done)).bytesWritten;
  }

  /** Waits for the write in flight; rethrows its error. */
  async #settle(): Promise<void> {
    const p = this.#pending;
    this.#pending = null;
    if (p !== null) await p;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#settle();
      const length = this.#flushed + this.#fill;
      if (this.#fill > 0) await this.#writeAll(this.#stage!, Math.ceil(this.#fill / ALIGN) * ALIGN, this.#flushed);
      await this.#fh.truncate(length);
      await this.#fh.datasync();
    } catch (err) {
      await this.#release();
      throw await this.#map(err);
    }
    await this.#release();
  }

  async abort(): Promise<void> {
    if (this.#closed) return;
    await this.#pending?.catch(() => undefined);
    this.#pending = null;
    await this.#release();
  }

  /** Closes the descriptor and returns the stages to the pool (no write is in flight by now). */
  async #release(): Promise<void> {
    this.#closed = true;
    await this.#fh.close().catch(() => undefined);
    release(this.#drive, this.#stage);
    release(this.#drive, this.#spare);
    this.#stage = null;
    this.#spare = null;
  }
}
