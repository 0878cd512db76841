/**
 * What one node reports about itself for the cluster information report (SPEC §2, issue 5; MinIO's per-server
 * `ServerProperties` in REFERENCE.md §1.2): uptime, version, its view of its peers, and its own drives with their
 * state and the statfs figures of their file system. Offline placeholders stand for a node that did not answer,
 * so a node that is down is listed as offline with all its drives, never missing.
 */
import { withDeadline } from '../../common/index.js';
import type { Drive, DriveSlotView } from '../../storage/index.js';
import { DiskNotFoundError, FaultyDiskError } from '../../storage/index.js';

/** Drive states of the report (MinIO's madmin drive states, REFERENCE.md §1.2). */
export type ReportDriveState = 'ok' | 'offline' | 'corrupt' | 'missing' | 'faulty' | 'unformatted';

/** One drive as the report shows it; positions are 1-based, sizes in bytes. */
export interface DriveReport {
  /** `http://host:port/path` in URL mode, the path in path mode. */
  endpoint: string;
  /** `host:port` of the server holding the drive. */
  server: string;
  path: string;
  state: ReportDriveState;
  /** From the drive's format; '' when unknown. */
  uuid: string;
  pool: number;
  set: number;
  index: number;
  totalBytes: number;
  usedBytes: number;
  availableBytes: number;
  healing: boolean;
}

/** One server as the report shows it. */
export interface ServerReport {
  endpoint: string;
  state: 'online' | 'offline';
  /** Null when offline. */
  uptimeSeconds: number | null;
  version: string | null;
  /** 1-based pools this server holds drives of. */
  pools: number[];
  /** This server's view of each peer (empty for a single node). */
  network: Record<string, 'online' | 'offline'>;
  drives: DriveReport[];
}

/** Where one of this server's drives sits in the deployment (0-based positions). */
export interface DrivePlace {
  endpoint: string;
  path: string;
  pool: number;
  set: number;
  index: number;
}

/** Options of {@link collectServerReport}. */
export interface LocalServerOptions {
  /** `host:port` of this server. */
  endpoint: string;
  version: string;
  startedAt: Date;
  /** This server's drives. */
  drives: readonly DrivePlace[];
  /** The drive slots of the open storage; undefined while the storage is not open yet (then every drive is offline). */
  slots: () => readonly DriveSlotView[] | undefined;
  /** This server's view of its peers. */
  network: () => Promise<Record<string, 'online' | 'offline'>>;
  now?: () => Date;
  /** Deadline of one drive's statfs (default 2 s). */
  diskTimeoutMs?: number;
}

const SLOT_STATE = { online: 'ok', offline: 'offline', unformatted: 'unformatted', mismatched: 'corrupt' } as const;

/** A drive that did not answer: its state says why, its capacity is 0. */
function placeReport(place: DrivePlace, server: string, state: ReportDriveState, uuid = '', healing = false): DriveReport {
  return {
    endpoint: place.endpoint, server, path: place.path, state, uuid,
    pool: place.pool + 1, set: place.set + 1, index: place.index + 1,
    totalBytes: 0, usedBytes: 0, availableBytes: 0, healing,
  };
}

async function driveReport(place: DrivePlace, server: string, slot: DriveSlotView | undefined, timeoutMs: number): Promise<DriveReport> {
  if (slot === undefined) return placeReport(place, server, 'offline');
  const drive: Drive = slot.drive;
  const state: ReportDriveState = SLOT_STATE[slot.state];
  try {
    const info = await withDeadline(drive.diskInfo(), timeoutMs);
    return {
      ...placeReport(place, server, state, slot.uuid, slot.healing),
      totalBytes: info.total, usedBytes: info.used, availableBytes: info.free,
    };
  } catch (err) {
    // A drive whose statfs fails says what is wrong with it: no root directory, or an I/O fault.
    const why: ReportDriveState = err instanceof DiskNotFoundError ? 'missing' : err instanceof FaultyDiskError ? 'faulty' : 'offline';
    return placeReport(place, server, state === 'ok' || state === 'offline' ? why : state, slot.uuid, slot.healing);
  }
}

/** This server's own report: its drives' states from the storage, their figures from statfs. */
export async function collectServerReport(opts: LocalServerOptions): Promise<ServerReport> {
  const now = opts.now ?? (() => new Date());
  const slots = opts.slots();
  const at = (p: DrivePlace): DriveSlotView | undefined => slots?.find((s) => s.pool === p.pool && s.set === p.set && s.index === p.index);
  const [drives, network] = await Promise.all([
    Promise.all(opts.drives.map((p) => driveReport(p, opts.endpoint, at(p), opts.diskTimeoutMs ?? 2_000))),
    opts.network(),
  ]);
  return {
    endpoint: opts.endpoint,
    state: 'online',
    uptimeSeconds: Math.max(0, Math.floor((now().getTime() - opts.startedAt.getTime()) / 1000)),
    version: opts.version,
    pools: poolsOf(opts.drives),
    network,
    drives,
  };
}

function poolsOf(drives: readonly DrivePlace[]): number[] {
  return [...new Set(drives.map((d) => d.pool + 1))].sort((a, b) => a - b);
}

/** The report of a server that did not answer: offline, every drive offline with capacity 0. */
export function offlineServerReport(endpoint: string, drives: readonly DrivePlace[]): ServerReport {
  return {
    endpoint, state: 'offline', uptimeSeconds: null, version: null, pools: poolsOf(drives), network: {},
    drives: drives.map((p) => placeReport(p, endpoint, 'offline')),
  };
}
