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

/** Latest (`max`) or earliest ISO time of a list, undefined when any is missing (`min`) or all are. */
function isoPick(times: (string | undefined)[], pick: 'max' | 'min'): string | undefined {
  const set = times.filter((t): t is string => t !== undefined);
  if (set.length === 0 || (pick === 'min' && set.length < times.length)) return undefined;
  return set.reduce((a, b) => ((pick === 'max' ? b > a : b < a) ? b : a));
}

/** Healing progress of several pools as one: counters summed; a cycle counts as completed once every pool completed it. */
export function mergeHealStatus(statuses: readonly HealStatus[]): HealStatus {
  if (statuses.length === 1) return statuses[0]!;
  const sc = statuses.map((s) => s.scanner);
  const sum = (f: (s: ScannerStatus) => number): number => sc.reduce((a, s) => a + f(s), 0);
  const scanner: ScannerStatus = {
    ...sc[0]!,
    enabled: sc.some((s) => s.enabled),
    running: sc.some((s) => s.running),
    cycle: Math.max(...sc.map((s) => s.cycle)),
    cyclesCompleted: Math.min(...sc.map((s) => s.cyclesCompleted)),
    objectsScannedThisCycle: sum((s) => s.objectsScannedThisCycle),
    objectsScanned: sum((s) => s.objectsScanned),
    healsQueued: sum((s) => s.healsQueued),
    objectsHealed: sum((s) => s.objectsHealed),
    healFailures: sum((s) => s.healFailures),
    errors: sum((s) => s.errors),
  };
  delete scanner.lastCycleStarted;
  delete scanner.lastCycleEnded;
  delete scanner.currentBucket;
  const started = isoPick(sc.map((s) => s.lastCycleStarted), 'max');
  const ended = isoPick(sc.map((s) => s.lastCycleEnded), 'min');
  const bucket = sc.find((s) => s.currentBucket !== undefined)?.currentBucket;
  if (started !== undefined) scanner.lastCycleStarted = started;
  if (ended !== undefined) scanner.lastCycleEnded = ended;
  if (bucket !== undefined) scanner.currentBucket = bucket;
  const queue = { ...statuses[0]!.queue };
  for (const s of statuses.slice(1)) {
    for (const k of Object.keys(queue) as (keyof HealQueueStatus)[]) queue[k] += s.queue[k];
  }
  return { scanner, queue, drives: statuses.flatMap((s, pool) => s.drives.map((d) => ({ ...d, pool }))) };
}

/**
 * Adds {@link HealingHooks} to a layer over several pools (each opened with {@link attachHealing}): the status
 * is merged and a scan cycle runs every pool's cycle in turn. Closing the pools closes their scanners.
 */
export function combineHealing<T extends object>(layer: T, pools: readonly HealingHooks[]): T & HealingHooks {
  const hooks: HealingHooks = {
    healStatus: () => mergeHealStatus(pools.map((p) => p.healStatus())),
    runScanCycle: async (opts) => {
      const total: ScanCycleResult = { cycle: 0, setsScanned: 0, objectsScanned: 0, healsQueued: 0, errors: 0, completed: true };
      for (const p of pools) {
        const r = await p.runScanCycle(opts);
        total.cycle = Math.max(total.cycle, r.cycle);
        total.setsScanned += r.setsScanned;
        total.objectsScanned += r.objectsScanned;
        total.healsQueued += r.healsQueued;
        total.errors += r.errors;
        total.completed &&= r.completed;
      }
      return total;
    },
  };
  return Object.assign(layer, hooks);
}
