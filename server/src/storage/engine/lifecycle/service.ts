import type { ObjectLayer } from '../object-layer.js';
import { runLifecycle, type LifecycleRunReport } from './run.js';

/** Options of LifecycleService. */
export interface LifecycleServiceOptions {
  /** Time between passes. */
  intervalMs: number;
  now?: () => number;
  /** Told about a failed action or pass. */
  onError?: (what: string, err: unknown) => void;
}

/**
 * The background lifecycle scanner: one pass every `intervalMs` (never two at once), plus `runNow()` for tests
 * and operators. Passes are idempotent, so a pass cut short by a restart is simply redone.
 */
export class LifecycleService {
  readonly #layer: ObjectLayer;
  readonly #opts: LifecycleServiceOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<LifecycleRunReport> | undefined;
  #last: LifecycleRunReport | undefined;

  constructor(layer: ObjectLayer, opts: LifecycleServiceOptions) {
    this.#layer = layer;
    this.#opts = opts;
  }

  /** Starts the periodic passes (the first after one interval). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.runNow().catch((err: unknown) => this.#opts.onError?.('lifecycle pass', err));
    }, this.#opts.intervalMs);
    this.#timer.unref();
  }

  /** Stops the periodic passes and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** Runs a pass now, or joins the one in progress. */
  runNow(): Promise<LifecycleRunReport> {
    if (this.#running !== undefined) return this.#running;
    const onError = this.#opts.onError;
    this.#running = runLifecycle(this.#layer, {
      now: this.#opts.now ?? Date.now,
      ...(onError !== undefined ? { onError: (bucket: string, key: string, err: unknown) => onError(`${bucket}/${key}`, err) } : {}),
    }).then((report) => {
      this.#last = report;
      return report;
    }).finally(() => { this.#running = undefined; });
    return this.#running;
  }

  /** The report of the last completed pass. */
  lastReport(): LifecycleRunReport | undefined {
    return this.#last;
  }
}
