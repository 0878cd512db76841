/** `npm run bench:ab`'s options and summary (ab.ts), apart so that tests need not run it. */

export interface AbOptions {
  /** The git revision the working tree's build is compared with. */
  old: string;
  pairs: number;
  /** Size of each run's file system image (sparse: only what a run writes takes space). */
  imageGiB: number;
  /**
   * --no-journal: each image made without ext4's journal, like this project's root file system; the default keeps the
   * journal a deployment would have. The two order small-file work differently (an O_DSYNC append commits the journal).
   */
  journal: boolean;
  /** Passed to both builds' server/bench/get-bench.ts. */
  benchArgs: string[];
}

/** Throws with the message to print (exit code 2) on a bad option. */
export function parseAbArgs(argv: readonly string[]): AbOptions {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const benchArgs = split < 0 ? [] : argv.slice(split + 1);
  let old: string | undefined;
  let pairs = 3;
  let imageGiB = 8;
  let journal = true;
  for (let i = 0; i < own.length; i++) {
    const name = own[i]!;
    if (name === '--no-journal') {
      journal = false;
      continue;
    }
    const value = own[i + 1];
    if (name !== '--old' && name !== '--pairs' && name !== '--image-gib') throw new Error(`unknown option ${name} (bench:get's options go after --)`);
    if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
    i++;
    if (name === '--old') old = value;
    else {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`${name} takes a whole number from 1 to 100, not ${value}`);
      if (name === '--pairs') pairs = n;
      else imageGiB = n;
    }
  }
  if (old === undefined) throw new Error('--old <git revision> is required (the build to compare the working tree with)');
  return { old, pairs, imageGiB, journal, benchArgs };
}

/** One round of one run, as get-bench prints it, with the build and pair added. */
export interface AbLine {
  build: 'new' | 'old';
  pair: number;
  round: number;
  opsPerSec: number;
  serverCpuMsPerOp: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Per build and round index: the medians over the pairs, and the new build's ratio to the old. */
export function summarizeAb(lines: readonly AbLine[]): Record<string, unknown>[] {
  const rounds = [...new Set(lines.map((l) => l.round))].sort((a, b) => a - b);
  return rounds.map((round) => {
    const of = (build: 'new' | 'old'): AbLine[] => lines.filter((l) => l.round === round && l.build === build);
    const [n, o] = [of('new'), of('old')];
    const newOps = median(n.map((l) => l.opsPerSec));
    const oldOps = median(o.map((l) => l.opsPerSec));
    return {
      summary: 'ab', round, pairs: Math.min(n.length, o.length),
      newOpsPerSec: newOps, oldOpsPerSec: oldOps, ratio: Math.round((newOps / oldOps) * 1000) / 1000,
      newServerCpuMsPerOp: median(n.map((l) => l.serverCpuMsPerOp)), oldServerCpuMsPerOp: median(o.map((l) => l.serverCpuMsPerOp)),
    };
  });
}
