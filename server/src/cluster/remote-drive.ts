/**
 * A Drive on another node, over the storage RPC (STYLE.md convention 5: the erasure layer does not know the
 * difference). Every call carries the client's deadline; a peer that is down, refuses our token or does not answer
 * in time surfaces as DiskNotFoundError (an offline drive: it does not vote in a quorum and the drive monitor
 * re-checks it), never as a hang. Errors raised by the remote drive itself arrive as their own classes.
 */
import type { ChildState, DirScan, DiskInfo, Drive, ReadMetaOptions, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from '../storage/index.js';
import { DiskNotFoundError, FaultyDiskError, FileCorruptError } from '../storage/index.js';
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

/** Bytes asked for from `start` up to `end` (the answer stops short only where the file ends). */
interface Span {
  start: number;
  end: number;
  data: Promise<Buffer>;
}

/**
 * Reads one shard file of a peer's drive. A read that follows the previous one (the decoder reads each shard's
 * chunks in block order, a few blocks ahead) asks for REMOTE_SPAN bytes, and the reads that fall inside a span, still
 * in flight or answered, are cut from it. A first read, or one out of order (a ranged GET, a seek), asks for its own
 * bytes only, so a small range never costs a span. The bitrot check stays with the caller (BitrotReader).
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

  async read(offset: number, length: number): Promise<Buffer> {
    const end = offset + length;
    const inOrder = offset === this.#next;
    this.#next = end;
    const span = this.#spans.find((s) => offset >= s.start && end <= s.end);
    if (span !== undefined) {
      const data = await span.data;
      // Shorter only where the file ends: the exact read below reports that.
      if (end - span.start <= data.length) return data.subarray(offset - span.start, end - span.start);
    } else if (inOrder && length < REMOTE_SPAN) {
      // Whole reads per span: in-order reads are chunks of one length, and a chunk cut at the span's end is read twice.
      const want = Math.floor(REMOTE_SPAN / length) * length;
      const fresh: Span = { start: offset, end: offset + want, data: this.#drive.readShardRange(this.#args, offset, length, want) };
      fresh.data.catch(() => undefined);
      this.#spans = [...this.#spans.slice(-1), fresh];
      const data = await fresh.data;
      // A peer without spans answers the bytes asked for (no more): the next reads then ask for theirs.
      if (data.length >= length) return data.subarray(0, length);
    }
    const data = await this.#drive.readShardRange(this.#args, offset, length);
    if (data.length !== length) throw new FileCorruptError(this.#drive.endpoint, this.#args[1] ?? '');
    return data;
  }

  async close(): Promise<void> {
    // Stateless on the peer; the spans' bytes go with the views handed out.
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
   * many (fewer only where the file ends; a peer of an earlier version answers `length`).
   */
  async readShardRange(args: readonly string[], offset: number, length: number, upTo?: number): Promise<Buffer> {
    try {
      return await this.#client.fetchBytes(drivePath(this.#path, SHARD_READ), [...args, offset, length, ...(upTo === undefined ? [] : [upTo])]);
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
