import { open, type FileHandle } from 'node:fs/promises';
import type { ShardReader, ShardWriter } from './drive.js';
import { FileCorruptError } from './drive-errors.js';
import { readBuffers } from './buffer-pool.js';
import { DIRECT_MIN, openDirect, readDirect } from './direct-read.js';

/** Local shard file I/O: vectored appends with fdatasync on close; positional verified-length reads. */

const FIRST_READ = 64 * 1024;

/**
 * Reads a whole small file through fs/promises (open, one read in the common case, close): the way a metadata
 * read goes when the drive I/O workers are backed up (io-pool.ts ioPoolSaturated). Metadata files are never
 * modified in place (they are replaced by rename), so the size seen through an open handle is stable.
 */
export async function readSmallFile(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const first = Buffer.allocUnsafe(FIRST_READ);
    const { bytesRead } = await fh.read(first, 0, FIRST_READ, 0);
    if (bytesRead < FIRST_READ) return first.subarray(0, bytesRead);
    const { size } = await fh.stat();
    const all = Buffer.allocUnsafe(Math.max(size, FIRST_READ));
    first.copy(all, 0, 0, FIRST_READ);
    let done = FIRST_READ;
    while (done < all.length) {
      const r = await fh.read(all, done, all.length - done, done);
      if (r.bytesRead === 0) break;
      done += r.bytesRead;
    }
    return all.subarray(0, done);
  } finally {
    await fh.close();
  }
}

/** ShardWriter over an open file. */
export class LocalShardWriter implements ShardWriter {
  readonly #fh: FileHandle;
  readonly #map: (err: unknown) => Promise<Error>;
  #closed = false;

  constructor(fh: FileHandle, map: (err: unknown) => Promise<Error>) {
    this.#fh = fh;
    this.#map = map;
  }

  async write(buffers: readonly Uint8Array[]): Promise<void> {
    try {
      let total = 0;
      for (const b of buffers) total += b.byteLength;
      let { bytesWritten: written } = await this.#fh.writev(buffers as Uint8Array[]);
      if (written < total) {
        // Partial vectored write (rare): finish from the concatenated remainder.
        const all = Buffer.concat(buffers as Uint8Array[]);
        while (written < total) written += (await this.#fh.write(all, written, total - written)).bytesWritten;
      }
    } catch (err) {
      throw await this.#map(err);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#fh.datasync();
    } catch (err) {
      await this.#fh.close().catch(() => undefined);
      throw await this.#map(err);
    }
    await this.#fh.close();
  }

  async abort(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#fh.close().catch(() => undefined);
  }
}

/** ShardReader over an open file; reads of DIRECT_MIN bytes and more go through a second, O_DIRECT descriptor. */
export class LocalShardReader implements ShardReader {
  readonly #fh: FileHandle;
  readonly #path: string;
  readonly #endpoint: string;
  readonly #key: string;
  /** Opened at the first large read (direct-read.ts); null when the drive's file system refuses O_DIRECT. */
  #direct: Promise<FileHandle | null> | undefined;

  constructor(fh: FileHandle, path: string, endpoint: string, key: string) {
    this.#fh = fh;
    this.#path = path;
    this.#endpoint = endpoint;
    this.#key = key;
  }

  async read(offset: number, length: number, pooled = false): Promise<Buffer> {
    if (length >= DIRECT_MIN) {
      this.#direct ??= openDirect(this.#path, this.#endpoint).catch(() => null);
      const direct = await this.#direct;
      if (direct !== null) {
        const got = await readDirect(direct, this.#endpoint, offset, length);
        if (got === 'short') throw new FileCorruptError(this.#endpoint, this.#key);
        if (got !== null) return got;
      }
    }
    const buf = pooled ? readBuffers.take(length) : Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.#fh.read(buf, done, length - done, offset + done);
      if (bytesRead === 0) throw new FileCorruptError(this.#endpoint, this.#key);
      done += bytesRead;
    }
    return buf;
  }

  async readSpan(offset: number, min: number, max: number): Promise<Buffer> {
    const { size } = await this.#fh.stat();
    const length = Math.min(max, size - offset);
    if (length < min) throw new FileCorruptError(this.#endpoint, this.#key);
    return this.read(offset, length);
  }

  async close(): Promise<void> {
    const direct = await this.#direct;
    await Promise.all([this.#fh.close().catch(() => undefined), direct?.close().catch(() => undefined)]);
  }
}
