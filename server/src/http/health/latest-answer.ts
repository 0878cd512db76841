/**
 * One dependency of the probes (storage quorum, lock quorum), asked at most once at a time. A cluster node's answer
 * can wait on a frozen peer for a whole RPC deadline (10 s), longer than a proxy's check timeout (SPEC §4 rule 7:
 * `timeout check 5s`, 1 s in the fast suite), and a readiness that times out there would take every healthy node
 * out of the proxy with the frozen one. So a probe waits for the current call only briefly when a recent answer is
 * at hand, and answers from that one meanwhile; with none, it waits up to the full deadline (startup, first probe).
 */

const PENDING = Symbol('pending');

/** Timing of a {@link LatestAnswer}. */
export interface LatestAnswerTiming {
  /** How long a probe waits when no recent answer is at hand (the probe deadline). */
  deadlineMs: number;
  /** How long after its start a call is waited for when a recent answer is at hand. */
  answerWithinMs: number;
  /** How old (since it was received) an answer may be and still stand in for a slow call. */
  maxAgeMs: number;
}

function within<T>(p: Promise<T>, ms: number): Promise<T | typeof PENDING> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof PENDING>((resolve) => { timer = setTimeout(() => resolve(PENDING), ms); });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The latest answer of `ask` (a rejected call answers `undefined`: the dependency is not ready). */
export class LatestAnswer<T> {
  readonly #ask: () => Promise<T>;
  readonly #timing: LatestAnswerTiming;
  #call: { promise: Promise<T | undefined>; startedAt: number } | undefined;
  /** `at`: when it was received; `askedAt`: when its call started (an abandoned call never overwrites a newer one). */
  #last: { value: T | undefined; at: number; askedAt: number } | undefined;

  constructor(ask: () => Promise<T>, timing: LatestAnswerTiming) {
    this.#ask = ask;
    this.#timing = timing;
  }

  /** The current answer: the running call's if it settles in time, else the last one if recent, else undefined. */
  async get(): Promise<T | undefined> {
    const now = Date.now();
    // A call that never settles is abandoned once it is older than an answer may be, so one hang is not forever.
    if (this.#call === undefined || now - this.#call.startedAt > this.#timing.maxAgeMs) this.#call = this.#start(now);
    const last = this.#last !== undefined && now - this.#last.at <= this.#timing.maxAgeMs ? this.#last : undefined;
    if (last === undefined) {
      const got = await within(this.#call.promise, this.#timing.deadlineMs);
      return got === PENDING ? undefined : got;
    }
    // The wait is counted from the call's start, not the probe's: while one call hangs on a frozen peer, only the
    // probe that started it waits; the ones after answer at once. Waiting answerWithinMs in every probe left a 1 s
    // check timeout half used under load, and a live node failed a check (failover.test.ts in CI).
    const wait = this.#timing.answerWithinMs - (now - this.#call.startedAt);
    if (wait <= 0) return last.value;
    const got = await within(this.#call.promise, wait);
    return got === PENDING ? last.value : got;
  }

  #start(startedAt: number): { promise: Promise<T | undefined>; startedAt: number } {
    const call = {
      startedAt,
      promise: this.#ask().then((value) => value, () => undefined).then((value) => {
        if (this.#last === undefined || this.#last.askedAt <= startedAt) this.#last = { value, at: Date.now(), askedAt: startedAt };
        if (this.#call === call) this.#call = undefined;
        return value;
      }),
    };
    return call;
  }
}
