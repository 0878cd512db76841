/**
 * Wire protocol of the storage RPC (issue 4 "Internal RPC", STYLE.md §2 cluster/rpc/protocol.ts).
 *
 * - `POST /svc/rpc/drive/<drive>/<method>` with `{"args":[…]}` → `200 {"value":…}`: metadata calls of the
 *   Drive port, one round trip each. Binary values travel as `{"$b":"<base64>"}` (small: metadata records).
 * - `PUT /svc/rpc/drive/<drive>/shard-write?path=<sysPath>` with a raw streaming body → `200 {"value":null}`
 *   once the shard file is fsynced: shard data, never buffered whole, TCP flow control end to end.
 * - `POST /svc/rpc/drive/<drive>/shard-read` with `{"args":[volume,key,dataDir,file,offset,length]}` → the raw bytes.
 * - `POST /svc/rpc/batch` with `{"deadlineMs":n,"calls":[{"drive","method","args"},…]}` → `200 {"results":[…]}`, one
 *   `{"value"}` or `{"error"}` per call in order: the JSON calls one erasure-set fan-out makes to the drives of one
 *   node, in one round trip (call-batcher.ts). A call still running after `deadlineMs` is answered
 *   ERR_RPC_UNAVAILABLE on its own, so one hung drive never takes the node's other drives with it.
 * - Failures: `{"error":{"code","message"}}` (rpc-errors.ts); 403 without a valid node token.
 *
 * `<drive>` is the drive's path on the serving node, URL-encoded as one segment.
 */
import type { Drive } from '../../storage/index.js';
import type { WireError } from './rpc-errors.js';

/** Bumped on any incompatible change; a peer speaking another version is refused with ERR_RPC_PROTOCOL. */
export const RPC_PROTOCOL_VERSION = '2';
/** Header carrying {@link RPC_PROTOCOL_VERSION}. */
export const RPC_VERSION_HEADER = 'x-svc-rpc-version';
/** URL prefix of the storage RPC. */
export const RPC_PREFIX = '/svc/rpc';

/** URL of the batched JSON calls. */
export const RPC_BATCH_PATH = `${RPC_PREFIX}/batch`;
/** Most calls in one batch request (a set has at most 16 drives; several sets may share a tick). */
export const MAX_BATCH_CALLS = 64;
/** Longest per-call deadline a batch may ask for. */
export const MAX_BATCH_DEADLINE_MS = 120_000;

/** One call of a batch, as the client queues it. */
export interface BatchCall {
  drive: string;
  method: string;
  args: unknown[];
}

/** One answer of a batch, in the order of the calls. */
export type BatchResult = { value: unknown } | { error: WireError };

/** Drive methods served as JSON metadata calls. */
export const DRIVE_METHODS = [
  'readFormat', 'writeFormat', 'diskInfo', 'cleanTemp',
  'makeVolume', 'statVolume', 'listVolumes', 'writeVolumeMeta', 'deleteVolume',
  'writeSysFile', 'readSysFile', 'listSysDir', 'renameSys', 'deleteSysPath',
  'renameData', 'readMeta', 'deleteObject', 'listDir', 'scanDir', 'readChildren',
] as const satisfies readonly (keyof Drive)[];

/** A Drive method served as a JSON call. */
export type DriveMethod = (typeof DRIVE_METHODS)[number];

/** Largest shard read served in one call (a block's chunk is ≤ 1 MiB + hash), and taken by a client. */
export const MAX_SHARD_READ = 64 * 1024 * 1024;

/** Streaming endpoints (not JSON calls). */
export const SHARD_WRITE = 'shard-write';
export const SHARD_READ = 'shard-read';

// Compile-time guard: every Drive method is either a JSON call or one of the two streaming ones (`settled` is the
// serving node's own wait, server-plugin.ts; `close` is the owning process's own, never a peer's).
type Unserved = Exclude<keyof Drive, DriveMethod | 'createShardWriter' | 'openShardReader' | 'endpoint' | 'isLocal' | 'settled' | 'close'>;
const ALL_SERVED: [Unserved] extends [never] ? true : Unserved = true;
void ALL_SERVED;

/** True when `name` is a Drive method served as a JSON call. */
export function isDriveMethod(name: string): name is DriveMethod {
  return (DRIVE_METHODS as readonly string[]).includes(name);
}

/** URL path of a drive call. */
export function drivePath(drive: string, method: string): string {
  return `${RPC_PREFIX}/drive/${encodeURIComponent(drive)}/${method}`;
}

/** JSON-safe form of a value: Uint8Array/Buffer → {$b: base64}, recursively; undefined → null. */
export function encodeValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (v instanceof Uint8Array) return { $b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (Array.isArray(v)) return v.map(encodeValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = encodeValue(x);
    return out;
  }
  return v;
}

/** Inverse of {@link encodeValue}. */
export function decodeValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeValue);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === '$b' && typeof o.$b === 'string') return Buffer.from(o.$b, 'base64');
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = decodeValue(o[k]);
    return out;
  }
  return v;
}
