/**
 * Login rate limit: failed sign-ins are counted per client address and per access key in a sliding window; past
 * the limit further attempts answer 429 with Retry-After until the window moves on. Per node and in memory: a
 * cluster multiplies the budget by its size at worst, which still stops online guessing.
 */
import { ConsoleError } from './console-error.js';

/** Options of {@link LoginLimiter}. */
export interface LoginLimiterOptions {
  /** Failures allowed per key within the window (default 10). */
  maxFailures?: number;
  /** Window length (default 5 min). */
  windowMs?: number;
  now?: () => number;
}

/** See the module comment. */
export class LoginLimiter {
  readonly #max: number;
  readonly #window: number;
  readonly #now: () => number;
  readonly #failures = new Map<string, number[]>();

  constructor(opts: LoginLimiterOptions = {}) {
    this.#max = opts.maxFailures ?? 10;
    this.#window = opts.windowMs ?? 5 * 60_000;
    this.#now = opts.now ?? Date.now;
  }

  #recent(key: string, now: number): number[] {
    const list = (this.#failures.get(key) ?? []).filter((t) => t > now - this.#window);
    if (list.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, list);
    return list;
  }

  /** Throws TooManyAttempts when any of `keys` used up its budget. */
  check(keys: readonly string[]): void {
    const now = this.#now();
    for (const key of keys) {
      const list = this.#recent(key, now);
      if (list.length >= this.#max) {
        const retryAfter = Math.max(1, Math.ceil((list[0]! + this.#window - now) / 1000));
        throw new ConsoleError('TooManyAttempts', `Too many failed sign-ins; try again in ${retryAfter} s.`, { retryAfter });
      }
    }
  }

  /** Counts a failed attempt against every key. */
  fail(keys: readonly string[]): void {
    const now = this.#now();
    for (const key of keys) this.#failures.set(key, [...this.#recent(key, now), now]);
    // Bound the memory an attacker can make us hold: drop the oldest keys past 10k.
    if (this.#failures.size > 10_000) {
      for (const k of [...this.#failures.keys()].slice(0, this.#failures.size - 10_000)) this.#failures.delete(k);
    }
  }

  /** Forgets the failures of an access key after a successful sign-in (the address keeps its count). */
  succeed(key: string): void {
    this.#failures.delete(key);
  }
}
