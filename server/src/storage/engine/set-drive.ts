import type { Drive } from '../drive/index.js';

/** Liveness of one drive slot, as last observed by the drive monitor or a failed call. */
export type DriveState = 'online' | 'offline' | 'unformatted' | 'mismatched';

/**
 * One position of an erasure set: the Drive plus the engine's view of it. Calls are only made to
 * online slots; a call failing with an "offline" class error flips the slot offline at once and
 * the monitor (drive-monitor.ts) brings it back when its format reads correctly again.
 */
export class SetDrive {
  readonly drive: Drive;
  readonly setIndex: number;
  readonly index: number;
  /** UUID this slot must carry in its format file. */
  uuid: string;
  state: DriveState = 'offline';
  /** True while a full heal onto this drive runs (it still counts as online). */
  healing = false;
  /** True while its format says it was formatted empty as a replacement and is not fully healed (DriveFormat.healing). */
  unhealed = false;
  /** The drive's root identity (DiskInfo.id) at the monitor's last check while online; undefined otherwise. */
  rootId: string | undefined;

  constructor(drive: Drive, setIndex: number, index: number, uuid: string) {
    this.drive = drive;
    this.setIndex = setIndex;
    this.index = index;
    this.uuid = uuid;
  }

  get online(): boolean {
    return this.state === 'online';
  }

  /** May lack objects it should hold: a full heal onto it runs here, or its format says it is not healed yet. */
  get lacksObjects(): boolean {
    return this.healing || this.unhealed;
  }
}
