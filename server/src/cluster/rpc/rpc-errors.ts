/**
 * Errors of the internal RPC and their wire form. A drive error raised on the serving node travels as
 * `{ error: { code, message } }` and is rebuilt here into the same class, so the engine's quorum reduction
 * (which counts FileNotFoundError as a vote and DiskNotFoundError as an absent drive) works across nodes.
 */
import { ServerError } from '../../common/index.js';
import {
  DiskFullError, DiskNotFoundError, FaultyDiskError, FileCorruptError, FileNotFoundError, InvalidDrivePathError,
  UnformattedDiskError, VolumeExistsError, VolumeNotFoundError,
} from '../../storage/index.js';

/** Why an RPC call failed outside the called method itself. */
export type RpcFailure = 'auth' | 'unavailable' | 'protocol';

const CODES = { auth: 'ERR_RPC_AUTH', unavailable: 'ERR_RPC_UNAVAILABLE', protocol: 'ERR_RPC_PROTOCOL' } as const;

/** The peer refused our token (403): it runs with other root credentials. */
export class RpcAuthError extends ServerError {
  constructor(peer: string) {
    super('ERR_RPC_AUTH', `node ${peer} refused this node's RPC token: are both started with the same root credentials?`);
  }
}

/** The peer is unreachable, or did not answer within the call's deadline. */
export class RpcUnavailableError extends ServerError {
  constructor(peer: string, reason: string, options?: { cause?: unknown }) {
    super('ERR_RPC_UNAVAILABLE', `node ${peer} is unavailable: ${reason}`, options);
  }
}

/** The peer answered something this node cannot understand (version skew, unknown method). */
export class RpcProtocolError extends ServerError {
  constructor(message: string) {
    super('ERR_RPC_PROTOCOL', message);
  }
}

/** The kind of a transport error, for callers that only branch on it. */
export function rpcFailureOf(err: unknown): RpcFailure | undefined {
  if (!(err instanceof ServerError)) return undefined;
  return (Object.keys(CODES) as RpcFailure[]).find((k) => CODES[k] === err.code);
}

/** Wire form of an error. */
export interface WireError {
  code: string;
  message: string;
}

/** Serializes an error for the wire; anything untyped is a faulty drive (it must not vote in a quorum). */
export function toWireError(err: unknown): WireError {
  if (err instanceof ServerError) return { code: err.code, message: err.message };
  return { code: 'ERR_DISK_FAULTY', message: err instanceof Error ? err.message : String(err) };
}

function withMessage<E extends Error>(err: E, message: string): E {
  err.message = message;
  return err;
}

const REBUILD: Readonly<Record<string, (message: string) => Error>> = {
  ERR_DISK_NOT_FOUND: (m) => withMessage(new DiskNotFoundError(''), m),
  ERR_DISK_UNFORMATTED: (m) => withMessage(new UnformattedDiskError(''), m),
  ERR_DISK_FAULTY: (m) => withMessage(new FaultyDiskError('', ''), m),
  ERR_DISK_FULL: (m) => withMessage(new DiskFullError(''), m),
  ERR_FILE_NOT_FOUND: (m) => withMessage(new FileNotFoundError('', ''), m),
  ERR_FILE_CORRUPT: (m) => withMessage(new FileCorruptError('', ''), m),
  ERR_VOLUME_NOT_FOUND: (m) => withMessage(new VolumeNotFoundError('', ''), m),
  ERR_VOLUME_EXISTS: (m) => withMessage(new VolumeExistsError('', ''), m),
  ERR_INVALID_DRIVE_PATH: (m) => withMessage(new InvalidDrivePathError(''), m),
  ERR_RPC_PROTOCOL: (m) => new RpcProtocolError(m),
  // A batched call the peer gave up waiting for (protocol.ts): an unavailable drive, as a call timeout would be.
  ERR_RPC_UNAVAILABLE: (m) => withMessage(new RpcUnavailableError('', ''), m),
};

/** Rebuilds the typed error of a wire error; an unknown code becomes a FaultyDiskError naming it. */
export function fromWireError(wire: WireError, endpoint: string): Error {
  const make = REBUILD[wire.code];
  if (make !== undefined) return make(wire.message);
  return new FaultyDiskError(endpoint, `remote error ${wire.code}: ${wire.message}`);
}
