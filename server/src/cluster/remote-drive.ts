/**
 * A Drive on another node, over the storage RPC (STYLE.md convention 5: the erasure layer does not know the
 * difference). Every call carries the client's deadline; a peer that is down, refuses our token or does not answer
 * in time surfaces as DiskNotFoundError (an offline drive: it does not vote in a quorum and the drive monitor
 * re-checks it), never as a hang. Errors raised by the remote drive itself arrive as their own classes.
 */
import type { ChildState, DirScan, DiskInfo, Drive, ReadMetaOptions, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from '../storage/index.js';
import { DiskNotFoundError, FaultyDiskError, FileCorruptError, readBuffers } from '../storage/index.js';
import { RpcAuthError, RpcProtocolError, RpcUnavailableError, SHARD_READ, SHARD_WRITE, drivePath } from './rpc/index.js';
import type { DriveMethod, RpcClient, RpcUpload } from './rpc/index.js';

function mapError(err: unknown, endpoint: string): Error {
  if (err instanceof RpcUnavailableError || err instanceof RpcAuthError) return new DiskNotFoundError(endpoint, { cause: err });
  if (err instanceof RpcProtocolError) return new FaultyDiskError(endpoint, err.message, { cause: err });
  return err instanceof Error ? err : new FaultyDiskError(endpoint, String(err));
}

class RemoteShardWriter implements ShardWriter {
  readonly #upload: RpcUpload;
  readonly #endpoint: string;

  constructor(upload: RpcUpload, endpoint: string) {
    this.#upload = upload;
    this.#endpoint = endpoint;
  }

  async write(buffers: readonly Uint8Array[]): Promise<void> {
    try {
      await this.#upload.write(buffers);
    } catch (err) {
      throw mapError(err, this.#endpoint);
    }
  }

  async close(): Promise<void> {
    try {
      await this.#upload.finish();
    } catch (err) {
      throw mapError(err, this.#endpoint);
    }
  }

  async abort(): Promise<void> {
    await this.#upload.abort().catch(() => undefined);
  }
}

/**
 * Bytes a remote shard reader asks for at once when a shard is read in order. A GET reads a block's chunk from each
 * data shard (block size / K bytes: ~85 KiB for 1 MiB blocks on 12 data shards), so one request per chunk made a
 * 64 MiB GET ~580 round trips to peers (64 blocks, ~9 remote data shards), each opening the shard file on its node:
 * the four-node cluster read 64 MiB objects at 128-152 MiB/s, slower than it wrote them (docs/performance.md,
 * seventeenth session).
 */
export const REMOTE_SPAN = 1024 * 1024;

/** A buffer lent by the read-buffer pool (storage/drive/buffer-pool.ts). */
const lend = (length: number): Buffer => readBuffers.take(length);

/** Bytes asked for from `start` up to `end` (the answer stops short only where the file ends). */
interface Span {
  start: number;
  end: number;
  /** A buffer of the read-buffer pool, which the reader hands back once it is dropped and no read still cuts from it. */
  data: Promise<Buffer>;
  /** Reads waiting to cut from it. */
  users: number;
  dropped: boolean;
}

/**
 * Reads one shard file of a peer's drive. A read that follows the previous one (the decoder reads each shard's
 * chunks in block order, a few blocks ahead) asks for REMOTE_SPAN bytes, and the reads that fall inside a span, still
 * in flight or answered, are cut from it. A first read, or one out of order (a ranged GET, a seek), asks for its own
 * bytes only, so a small range never costs a span. The bitrot check stays with the caller (BitrotReader).
 *
 * Memory: a span arrives in a pooled buffer and each read gets a copy of its bytes (pooled when the caller hands
 * buffers back, `pooled`), so that the span can go back to the pool as soon as it is dropped: the caller's holder
 * hands back each chunk's buffer on its own (engine/recycling-stream.ts), which a view into a shared span would not
 * survive. Joined into fresh buffers, the spans were most of what a coordinator allocated per GET, and V8 ran a full
 * GC every ~70 ms per node through the cluster's 64 MiB GETs (docs/performance.md, eighteenth session).
 */
class RemoteShardReader implements ShardReader {
  readonly #drive: RemoteDrive;
  readonly #args: readonly string[];
  /** End of the last read asked for: the next read is in order when it starts there. */
  #next = -1;
  /** The two latest spans (reads ahead of the consumer may still be served from the older). */
  #spans: Span[] = [];

  constructor(drive: RemoteDrive, args: readonly string[]) {
    this.#drive = drive;
    this.#args = args;
  }

  async read(offset: number, length: number, pooled = false): Promise<Buffer> {
    const end = offset + length;
    const inOrder = offset === this.#next;
    this.#next = end;
    const span = this.#spans.find((s) => offset >= s.start && end <= s.end);
    if (span !== undefined) {
      const cut = await this.#cut(span, offset, length, pooled);
      if (cut !== undefined) return cut;
    } else if (inOrder && length < REMOTE_SPAN) {
      // Whole reads per span: in-order reads are chunks of one length, and a chunk cut at the span's end is read twice.
      const want = Math.floor(REMOTE_SPAN / length) * length;
      const fresh: Span = {
        start: offset, end: offset + want, users: 0, dropped: false,
        data: this.#drive.readShardRange(this.#args, offset, length, want, lend),
      };
      fresh.data.catch(() => undefined);
      const older = this.#spans.slice(0, -1);
      this.#spans = [...this.#spans.slice(-1), fresh];
      for (const s of older) this.#drop(s);
      // A peer without spans answers the bytes asked for (no more): the next reads then ask for theirs.
      const cut = await this.#cut(fresh, offset, length, pooled);
      if (cut !== undefined) return cut;
    }
    const data = await this.#drive.readShardRange(this.#args, offset, length, undefined, pooled ? lend : undefined);
    if (data.length !== length) throw new FileCorruptError(this.#drive.endpoint, this.#args[1] ?? '');
    return data;
  }

  /** A copy of `length` bytes at `offset` from `span`; undefined when the span's answer stops before them. */
  async #cut(span: Span, offset: number, length: number, pooled: boolean): Promise<Buffer | undefined> {
    span.users++;
    try {
      const data = await span.data;
      const from = offset - span.start;
      // Shorter only where the file ends: the exact read after this reports that.
      if (from + length > data.length) return undefined;
      const out = pooled ? lend(length) : Buffer.allocUnsafe(length);
      data.copy(out, 0, from, from + length);
      return out;
    } finally {
      span.users--;
      this.#release(span);
    }
  }

  #drop(span: Span): void {
    if (span.dropped) return;
    span.dropped = true;
    this.#release(span);
  }

  /** Hands a dropped span's buffer back once no read cuts from it (exactly once: users only fall after the drop). */
  #release(span: Span): void {
    if (!span.dropped || span.users !== 0) return;
    span.users = -1;
    span.data.then((data) => readBuffers.recycle(data), () => undefined);
  }

  async close(): Promise<void> {
    for (const s of this.#spans) this.#drop(s);
    this.#spans = [];
  }
}

/** Options of {@link RemoteDrive}. */
export interface RemoteDriveOptions {
  /** Client of the node that owns the drive. */
  client: RpcClient;
  /** The drive's path on that node. */
  path: string;
  /** Display name (default `<origin><path>`). */
  endpoint?: string;
}

/** Drive port implemented over {@link RpcClient}. */
export class RemoteDrive implements Drive {
  readonly endpoint: string;
  readonly isLocal = false;
  readonly #client: RpcClient;
  readonly #path: string;

  constructor(opts: RemoteDriveOptions) {
    this.#client = opts.client;
    this.#path = opts.path;
    this.endpoint = opts.endpoint ?? `${opts.client.origin}${opts.path}`;
  }

  async #call<T>(method: DriveMethod, args: readonly unknown[]): Promise<T> {
    try {
      return await this.#client.driveCall(this.#path, method, args) as T;
    } catch (err) {
      throw mapError(err, this.endpoint);
    }
  }

  /**
   * One ranged read of a committed shard file (used by the shard reader): `length` bytes, or with `upTo` up to that
   * many (fewer only where the file ends; a peer of an earlier version answers `length`), into a buffer from `alloc`.
   */
  async readShardRange(args: readonly string[], offset: number, length: number, upTo?: number, alloc?: (length: number) => Buffer): Promise<Buffer> {
    try {
      return await this.#client.fetchBytes(drivePath(this.#path, SHARD_READ), [...args, offset, length, ...(upTo === undefined ? [] : [upTo])], alloc);
    } catch (err) {
      throw mapError(err, this.endpoint);
    }
  }

  readFormat(): Promise<Buffer> { return this.#call('readFormat', []); }
  async writeFormat(data: Buffer): Promise<void> { await this.#call('writeFormat', [data]); }
  diskInfo(): Promise<DiskInfo> { return this.#call('diskInfo', []); }
  async cleanTemp(olderThanMs = 0): Promise<void> { await this.#call('cleanTemp', [olderThanMs]); }

  async makeVolume(volume: string, meta: Buffer): Promise<void> { await this.#call('makeVolume', [volume, meta]); }
  statVolume(volume: string): Promise<Buffer> { return this.#call('statVolume', [volume]); }
  listVolumes(): Promise<VolumeEntry[]> { return this.#call('listVolumes', []); }
  async writeVolumeMeta(volume: string, meta: Uint8Array): Promise<void> { await this.#call('writeVolumeMeta', [volume, meta]); }
  async deleteVolume(volume: string): Promise<void> { await this.#call('deleteVolume', [volume]); }

  async createShardWriter(sysPath: string): Promise<ShardWriter> {
    // The upload starts lazily: a refused path or an offline drive fails the first write or the close.
    const upload = this.#client.upload(`${drivePath(this.#path, SHARD_WRITE)}?path=${encodeURIComponent(sysPath)}`);
    return new RemoteShardWriter(upload, this.endpoint);
  }

  async writeSysFile(sysPath: string, data: Uint8Array): Promise<void> { await this.#call('writeSysFile', [sysPath, data]); }
  readSysFile(sysPath: string): Promise<Buffer> { return this.#call('readSysFile', [sysPath]); }
  listSysDir(sysPath: string): Promise<string[]> { return this.#call('listSysDir', [sysPath]); }
  async renameSys(src: string, dst: string): Promise<void> { await this.#call('renameSys', [src, dst]); }
  async deleteSysPath(sysPath: string): Promise<void> { await this.#call('deleteSysPath', [sysPath]); }

  /** With `returnPrevious`, the owner's answer is the replaced record (null: none); null otherwise. */
  async renameData(volume: string, key: string, meta: Uint8Array, opts: RenameDataOptions): Promise<Buffer | null> {
    const previous: unknown = await this.#call('renameData', [volume, key, meta, opts]);
    return Buffer.isBuffer(previous) ? previous : null;
  }

  /**
   * `cached` travels to the drive's owner, whose change log sees every change of its drives (the storage RPC included),
   * so its answer from memory is as exact there as for its own GETs (storage/drive/meta-cache.ts).
   */
  readMeta(volume: string, key: string, opts?: ReadMetaOptions): Promise<Buffer> {
    return this.#call('readMeta', opts?.cached === true ? [volume, key, { cached: true }] : [volume, key]);
  }

  async openShardReader(volume: string, key: string, dataDir: string, file: string): Promise<ShardReader> {
    // No round trip to open: a missing file fails the first read, which the decoder treats as a bad shard.
    return new RemoteShardReader(this, [volume, key, dataDir, file]);
  }

  async deleteObject(volume: string, key: string): Promise<void> { await this.#call('deleteObject', [volume, key]); }
  listDir(volume: string, dirKey: string): Promise<string[]> { return this.#call('listDir', [volume, dirKey]); }
  scanDir(volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
    return this.#call('scanDir', [volume, dirKey, knownStamp]);
  }

  /** One round trip for the whole batch (the listing's metadata reads of up to a page of keys). */
  readChildren(volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known: readonly (string | null)[] | null = null): Promise<ChildState[]> {
    return this.#call('readChildren', [volume, dirKey, names, withMeta, known]);
  }
}
