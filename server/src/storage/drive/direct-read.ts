import { constants, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { readBuffers } from './buffer-pool.js';
import { ALIGN, isEinval, probeAlignment } from './direct-align.js';

/**
 * Large shard reads with O_DIRECT, past the page cache (issue 9: 64 MiB GET at 4 in flight ≥ 1.2 GiB/s).
 *
 * On this class of VM a buffered read of a file that is not cached yet costs the kernel ~2 s of CPU per GiB (copying
 * into newly allocated page-cache pages: `_copy_to_iter` took a quarter of all CPU time during 64 MiB GETs) and
 * reached 400–526 MiB/s, while O_DIRECT reads of the same fresh files reached 1,500–1,800 MiB/s with ~0.04 s of CPU
 * per GiB (dd, sixteenth session, docs/performance.md). Shard files are written with O_DIRECT (direct-shard-writer.ts),
 * so a GET after a PUT never finds them cached anyway; `npm run bench`'s 64 MiB GETs fell from 1,100–1,300 to ~500
 * MiB/s round after round as the page cache took fresh pages. (MinIO offers the same as an option, its storage class
 * setting `DMA=read+write`; by default it reads through the page cache.)
 *
 * O_DIRECT needs the memory address, file offset and length aligned to the device's logical block: a read is widened
 * to ALIGN boundaries into a pooled buffer (buffer-pool.ts: page-aligned, direct-align.ts) with ALIGN bytes of slack,
 * read from its start, or, should the kernel refuse that (EINVAL, before any I/O), from an aligned offset found once
 * per buffer by probing, and the caller gets a view of the bytes it asked for. Reads under DIRECT_MIN stay buffered:
 * small ranges are cheap through the page cache, and small buffers are not pooled. A file system that refuses O_DIRECT
 * (tmpfs, some FUSE) keeps buffered reads for its drive.
 */

/** Reads at least this long go direct (an erasure block's chunk is ~BLOCK_SIZE / K: 256 KiB and more). */
export const DIRECT_MIN = 64 * 1024;

/** Per drive: whether its file system takes O_DIRECT reads (absent until known). */
const directOk = new Map<string, boolean>();
/** Aligned offset of each pooled buffer probed so far (for reads; weak: buffers dropped by the pool go). */
const aligned = new WeakMap<ArrayBufferLike, number>();

/** The file opened for direct reads, or null when its drive's file system refuses O_DIRECT. */
export async function openDirect(path: string, drive: string): Promise<FileHandle | null> {
  if (directOk.get(drive) === false) return null;
  try {
    const fh = await open(path, constants.O_RDONLY | constants.O_DIRECT);
    directOk.set(drive, true);
    return fh;
  } catch (err) {
    if (!isEinval(err)) throw err;
    directOk.set(drive, false);
    return null;
  }
}

/**
 * Bytes [offset, offset + length) of the file behind `fh` (opened by openDirect), read with O_DIRECT: a view of a
 * pooled buffer (readBuffers), recyclable like any other. Null when this read cannot be aligned (the caller then reads
 * buffered); 'short' when the file ends before the range (the caller's FileCorruptError).
 */
export async function readDirect(fh: FileHandle, drive: string, offset: number, length: number): Promise<Buffer | 'short' | null> {
  const start = offset - (offset % ALIGN);
  const end = Math.ceil((offset + length) / ALIGN) * ALIGN;
  const span = end - start;
  const buf = readBuffers.take(span + ALIGN);
  let at = aligned.get(buf.buffer);
  // readBuffers are page-aligned (buffer-pool.ts): a buffer not read into yet is tried from its start, and probed
  // only if the kernel refuses that. The probe's synchronous read waited for the disk on the event loop.
  if (at === undefined && buf.byteOffset === 0) {
    const first = await readSpan(fh, buf, 0, span, start);
    if (first !== null) {
      aligned.set(buf.buffer, 0);
      return finish(buf, 0, first, start, offset, length);
    }
  }
  if (at === undefined) {
    // A read of ALIGN bytes at file offset 0 (the file is at least DIRECT_MIN long).
    const found = probeAlignment((off) => readSync(fh.fd, buf, off, ALIGN, 0));
    if (found === null) {
      // No address of a 4 KiB-slack buffer is accepted: this file system takes no direct reads after all.
      directOk.set(drive, false);
      return null;
    }
    at = found + buf.byteOffset;
    aligned.set(buf.buffer, at);
  }
  const base = at - buf.byteOffset;
  const done = await readSpan(fh, buf, base, span, start);
  if (done === null) {
    // Probed against a device with a smaller logical block than this one's: probed again at its next use here.
    aligned.delete(buf.buffer);
    return null;
  }
  return finish(buf, base, done, start, offset, length);
}

/** Reads up to `span` bytes at file offset `start` into `buf` from `base`: the bytes read, or null on EINVAL. */
async function readSpan(fh: FileHandle, buf: Buffer, base: number, span: number, start: number): Promise<number | null> {
  let done = 0;
  try {
    while (done < span) {
      const { bytesRead } = await fh.read(buf, base + done, span - done, start + done);
      done += bytesRead;
      // The file's end: O_DIRECT reads past it come back short.
      if (bytesRead === 0 || bytesRead % ALIGN !== 0) break;
    }
  } catch (err) {
    if (!isEinval(err)) throw err;
    return null;
  }
  return done;
}

/** The caller's bytes of a span read at `base` of `buf`, or 'short' when the file ended first. */
function finish(buf: Buffer, base: number, done: number, start: number, offset: number, length: number): Buffer | 'short' {
  if (start + done < offset + length) return 'short';
  const from = base + (offset - start);
  return buf.subarray(from, from + length);
}
