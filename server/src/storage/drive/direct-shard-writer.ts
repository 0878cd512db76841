import { constants, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { ShardWriter } from './drive.js';
import { ALIGN, isEinval, pageAlignedArrayBuffer, probeAlignment } from './direct-align.js';
import { LocalShardWriter } from './local-shard-io.js';

/**
 * Shard files written with O_DIRECT (issue 9: on this class of VM buffered writes + fsync reach
 * ~350 MiB/s because page-cache write-back is the bottleneck, O_DIRECT 2.3 GiB/s; MinIO writes
 * shards the same way). O_DIRECT needs the memory address, file offset and length of every write
 * aligned to the device's logical block; the shard layout (32-byte hash ‖ chunk) is not, so
 * appends are copied into aligned 1 MiB staging buffers, each written through a second, O_DIRECT
 * descriptor once full (two writes in flight while the next stage fills). The file is created
 * through an ordinary descriptor, which also writes the unaligned tail at close (and the whole of
 * a file under 64 KiB) before fdatasync: the bytes on disk are exactly the appended ones, and small
 * files cost what they cost before.
 *
 * JS cannot see a Buffer's address, so a staging buffer is allocated page-aligned where V8 allows
 * (pageAlignedArrayBuffer: the disk is three times faster with it) with ALIGN bytes of slack. Its
 * first direct write is tried from offset 0; only when the kernel refuses it (EINVAL, before any
 * I/O) is an aligned offset found by probing (synchronous writes where the stage is about to be
 * written). The probe used to run for every new stage: its synchronous 4 KiB write to disk waited
 * behind the other PUTs' writes on the event loop, ~8 % of it during 64 MiB PUTs (twenty-eighth
 * session). Stages are pooled per drive. When the file system refuses O_DIRECT (older
 * tmpfs, some FUSE), that drive's shard files are written buffered.
 */
/** Bytes per direct write. */
const STAGE = 1 << 20;
/**
 * Free stages kept for reuse, over all drives (1 MiB each). A new stage costs an allocation and the page faults of its
 * first fill (and cost a probe before stages were allocated page-aligned: with 16 kept most stages were new, and
 * probes took ~12 ms of the event loop per 64 MiB PUT, ~3 ms with 40; docs/performance.md); 4 large PUTs in flight on
 * 4 drives hold 32-48 stages.
 */
const POOL_MAX = 40;
/**
 * Direct writes of one file in flight at once. One left the disk idle between a file's stages: 64 MiB PUTs at 1 / 4 in
 * flight 102.7-106 / 111.9-118 MiB/s with one, 102.2-111.3 / 115.8-134.4 with two (alternated, twenty-eighth session).
 */
const WRITES_IN_FLIGHT = 2;
/** Below this a file's bytes are written buffered in one call: a second descriptor would cost more than it saves. */
const SMALL_FILE = 64 * 1024;

/**
 * Memory whose direct write the kernel refused (EINVAL: not aligned to the device's logical block); its appends are
 * staged. Weak: the pool's buffers come and go.
 */
const misaligned = new WeakSet<ArrayBufferLike>();
/** Appends written in place so far (tests). */
let inPlace = 0;

/** How many appends were written with O_DIRECT from the caller's memory, without a stage (tests). */
export function writtenInPlace(): number {
  return inPlace;
}

/** A staging buffer: `off` is its aligned offset in `raw` for `drive`, null until probed (data then starts at 0). */
interface Stage {
  raw: Buffer;
  off: number | null;
  drive: string;
}

const free: Stage[] = [];
/** Per drive: whether its file system accepts O_DIRECT writes (absent until known). */
const directOk = new Map<string, boolean>();

const pageAligned = (bytes: number): Buffer => Buffer.from(pageAlignedArrayBuffer(bytes));
let allocate = pageAligned;

/** For tests: new stages get their memory from `fn` (misaligned memory, to reach the probe), or page-aligned again. */
export function setStageMemoryForTests(fn: ((bytes: number) => Buffer) | undefined): void {
  allocate = fn ?? pageAligned;
}

function acquire(drive: string): Stage {
  for (let i = free.length - 1; i >= 0; i--) {
    if (free[i]!.drive === drive) return free.splice(i, 1)[0]!;
  }
  return { raw: allocate(STAGE + ALIGN), off: null, drive };
}

function release(s: Stage | null): void {
  if (s === null) return;
  if (free.length >= POOL_MAX) free.shift();
  free.push(s);
}

function view(s: Stage): Buffer {
  const off = s.off ?? 0;
  return s.raw.subarray(off, off + STAGE);
}

/**
 * Aligns a full, never probed stage for direct writes to `fd` at file offset `at`: finds the first
 * offset whose O_DIRECT write of ALIGN bytes succeeds (misaligned attempts fail with EINVAL in
 * microseconds, without I/O; the successful one is overwritten by the stage write that follows)
 * and moves the staged bytes there. False when no offset is accepted.
 */
function probe(s: Stage, fd: number, at: number): boolean {
  const off = probeAlignment((o) => writeSync(fd, s.raw, o, ALIGN, at));
  if (off === null) return false;
  s.raw.copyWithin(off, 0, STAGE);
  s.off = off;
  return true;
}

/**
 * Opens a new shard file (truncating) for sequential appends; large files are written with
 * O_DIRECT when the file system of drive `driveKey` accepts it. `map` turns I/O errors into drive
 * errors.
 */
export async function openShardWriter(path: string, driveKey: string, map: (err: unknown) => Promise<Error>): Promise<ShardWriter> {
  const fh = await open(path, 'w');
  if (directOk.get(driveKey) === false) return new LocalShardWriter(fh, map);
  return new DirectShardWriter(fh, path, driveKey, map);
}

/** ShardWriter staging appends for O_DIRECT writes; see the module comment. */
class DirectShardWriter implements ShardWriter {
  readonly #fh: FileHandle;
  readonly #path: string;
  readonly #drive: string;
  readonly #map: (err: unknown) => Promise<Error>;
  /** The O_DIRECT descriptor, opened at the first direct write (null once refused); null before. */
  #direct: Promise<FileHandle | null> | null = null;
  #buffered = false;
  /** Stage being filled, and the one last written (reused once its write completed). */
  #stage: Stage | null = null;
  #spare: Stage | null = null;
  #fill = 0;
  /** Bytes handed to the kernel: a multiple of ALIGN. */
  #flushed = 0;
  #pending: Promise<void>[] = [];
  #closed = false;

  constructor(fh: FileHandle, path: string, drive: string, map: (err: unknown) => Promise<Error>) {
    this.#fh = fh;
    this.#path = path;
    this.#drive = drive;
    this.#map = map;
  }

  async write(buffers: readonly Uint8Array[]): Promise<void> {
    try {
      if (this.#closed) throw new Error('write after close');
      if (buffers.length === 1 && await this.#writeInPlace(buffers[0]!)) return;
      for (const b of buffers) {
        let off = 0;
        while (off < b.byteLength) {
          if (this.#stage === null) {
            this.#stage = this.#spare ?? acquire(this.#drive);
            this.#spare = null;
          }
          const take = Math.min(STAGE - this.#fill, b.byteLength - off);
          view(this.#stage).set(b.subarray(off, off + take), this.#fill);
          this.#fill += take;
          off += take;
          if (this.#fill === STAGE) await this.#flushStage();
        }
      }
    } catch (err) {
      throw await this.#map(err);
    }
  }

  /**
   * Writes `b` with O_DIRECT where it is when nothing is staged (the file offset is then a multiple of ALIGN) and it
   * is whole pages of memory not refused before; false when it must be staged (also after the kernel refused it).
   */
  async #writeInPlace(b: Uint8Array): Promise<boolean> {
    if (this.#fill !== 0 || this.#buffered || b.byteLength < SMALL_FILE || b.byteLength % ALIGN !== 0 || misaligned.has(b.buffer)) return false;
    const direct = await this.#openDirect();
    if (direct === null) return false;
    const at = this.#flushed;
    try {
      await writeAll(direct, Buffer.from(b.buffer, b.byteOffset, b.byteLength), b.byteLength, at);
    } catch (err) {
      if (!isEinval(err)) throw err;
      misaligned.add(b.buffer);
      return false;
    }
    this.#flushed += b.byteLength;
    inPlace++;
    return true;
  }

  /** Starts writing the full stage; waits for the oldest write first when WRITES_IN_FLIGHT are. */
  async #flushStage(): Promise<void> {
    await this.#settle(WRITES_IN_FLIGHT - 1);
    const stage = this.#stage!;
    const at = this.#flushed;
    this.#flushed += STAGE;
    this.#fill = 0;
    this.#stage = null;
    const p = this.#writeStage(stage, STAGE, at).then(() => {
      if (this.#closed || this.#spare !== null) release(stage);
      else this.#spare = stage;
    });
    p.catch(() => undefined);
    this.#pending.push(p);
  }

  /**
   * Writes the first `length` bytes of `stage` at file offset `at`: through the O_DIRECT descriptor when the file system
   * takes it and the stage's memory is aligned (tried from offset 0 first, probed only when refused), else buffered.
   */
  async #writeStage(stage: Stage, length: number, at: number): Promise<void> {
    const direct = await this.#openDirect();
    if (direct !== null && stage.off === null) {
      try {
        await writeAll(direct, stage.raw, length, at);
        stage.off = 0;
        return;
      } catch (err) {
        if (!isEinval(err)) throw err;
      }
      if (!probe(stage, direct.fd, at)) {
        this.#refuseDirect();
        return writeAll(this.#fh, view(stage), length, at);
      }
    }
    return writeAll(direct ?? this.#fh, view(stage), length, at);
  }

  /** The O_DIRECT descriptor, opened on demand; null once the file system refused O_DIRECT. */
  #openDirect(): Promise<FileHandle | null> {
    if (this.#buffered) return Promise.resolve(null);
    // One open for the writes in flight.
    this.#direct ??= open(this.#path, constants.O_WRONLY | constants.O_DIRECT).then((fh) => {
      directOk.set(this.#drive, true);
      return fh;
    }, (err: unknown) => {
      if (!isEinval(err)) throw err;
      this.#refuseDirect();
      return null;
    });
    return this.#direct;
  }

  /** This file, and the drive's next ones, are written buffered. */
  #refuseDirect(): void {
    directOk.set(this.#drive, false);
    this.#buffered = true;
  }

  /** Waits for the oldest writes in flight until at most `keep` are; rethrows their errors. */
  async #settle(keep: number): Promise<void> {
    while (this.#pending.length > keep) await this.#pending.shift();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#settle(0);
      if (this.#fill > 0) {
        const stage = this.#stage!;
        let aligned = 0;
        // Files under one stage too (a 1 MiB object's shards are ~512 KiB): buffered, their bytes went through the
        // page cache at a quarter of the PUT's CPU on this VM (perf: copy_folio_from_iter_atomic, twelfth session).
        if (this.#fill >= SMALL_FILE && !this.#buffered) {
          aligned = Math.floor(this.#fill / ALIGN) * ALIGN;
          await this.#writeStage(stage, aligned, this.#flushed);
        }
        if (this.#fill > aligned) await writeAll(this.#fh, view(stage).subarray(aligned), this.#fill - aligned, this.#flushed + aligned);
      }
      await this.#fh.datasync();
    } catch (err) {
      await this.#release();
      throw await this.#map(err);
    }
    await this.#release();
  }

  async abort(): Promise<void> {
    if (this.#closed) return;
    await Promise.all(this.#pending.map((p) => p.catch(() => undefined)));
    this.#pending = [];
    await this.#release();
  }

  /** Closes the descriptors and returns the stages to the pool (no write is in flight by now). */
  async #release(): Promise<void> {
    this.#closed = true;
    await this.#direct?.then((fh) => fh?.close()).catch(() => undefined);
    await this.#fh.close().catch(() => undefined);
    release(this.#stage);
    release(this.#spare);
    this.#stage = null;
    this.#spare = null;
  }
}

async function writeAll(fh: FileHandle, b: Buffer, length: number, at: number): Promise<void> {
  let done = 0;
  while (done < length) done += (await fh.write(b, done, length - done, at + done)).bytesWritten;
}
