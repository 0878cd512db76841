import type { DriveHealStatus, DriveHealTracker } from './drive-heal-tracker.js';
import type { HealQueue, HealQueueStatus } from './heal-queue.js';
import type { ScanCycleOptions, ScanCycleResult, Scanner, ScannerStatus } from './scanner.js';

/**
 * Healing progress of one storage (issue 4: "progress visible to the admin API"): the background
 * scanner, the heal queue (heals on read, after partial writes, and from the scanner) and full-drive
 * heals. JSON-serializable: times are ISO 8601 strings.
 */
export interface HealStatus {
  scanner: ScannerStatus;
  queue: HealQueueStatus;
  /** Full-drive heals: the latest of each drive that had one since opening, and drives waiting for theirs. */
  drives: DriveHealStatus[];
}

/** The healing hooks a Storage carries besides its ObjectLayer. */
export interface HealingHooks {
  /** Healing progress now. */
  healStatus(): HealStatus;
  /** Runs one scanner cycle now (tests, admin "heal now"); heals it queues finish later (see drainHeals). */
  runScanCycle(opts?: ScanCycleOptions): Promise<ScanCycleResult>;
}

/**
 * Adds {@link HealingHooks} to `layer` and makes its `close()` stop the scanner first (the layer's own
 * close then stops the drive monitor and the heal queue).
 */
export function attachHealing<T extends { close(): Promise<void> }>(
  layer: T, parts: { scanner: Scanner; heals: HealQueue; drives: DriveHealTracker },
): T & HealingHooks {
  const close = layer.close.bind(layer);
  const hooks: HealingHooks & { close(): Promise<void> } = {
    healStatus: () => ({ scanner: parts.scanner.status(), queue: parts.heals.status(), drives: parts.drives.status() }),
    runScanCycle: (opts) => parts.scanner.runCycle(opts),
    close: async () => {
      await parts.scanner.close();
      await close();
    },
  };
  return Object.assign(layer, hooks);
}
