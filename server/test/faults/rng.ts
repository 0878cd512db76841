/** A small seeded random number generator (mulberry32), so a fault run can be replayed from its printed seed. */

/** Deterministic random choices from one 32-bit seed. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A copy of `items` in random order. */
  shuffle<T>(items: readonly T[]): T[];
  /** A new generator derived from this one's seed and `salt` (one per client, independent of call order). */
  fork(salt: number): Rng;
}

/** The generator for `seed` (any integer; only its low 32 bits count). */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    fork: (salt) => seededRng(Math.imul((seed >>> 0) ^ 0x9e3779b9, salt + 1) ^ salt),
  };
  return rng;
}

/** The run's seed: SVC_FAULT_SEED when set (replay), otherwise a fresh random one. */
export function runSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env['SVC_FAULT_SEED'];
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n)) throw new Error(`SVC_FAULT_SEED must be an integer, got ${JSON.stringify(given)}`);
    return n >>> 0;
  }
  return Math.floor(Math.random() * 4_294_967_296) >>> 0;
}
