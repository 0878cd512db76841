/** `npm run bench:ab`'s options and summary (ab.ts), apart so that tests need not run it. */

/**
 * File systems a run's image can have, and how each is made (`mkfs` and its options; the image path goes last).
 * `ext4` keeps the journal a deployment has; `ext4-nojournal` is like this project's root file system; `ext4-inline`
 * stores small directories (a key's, holding one metadata file) in their inodes; `xfs` is what MinIO recommends.
 */
export const FILE_SYSTEMS: Readonly<Record<string, readonly string[]>> = {
  ext4: ['mkfs.ext4', '-q', '-F'],
  'ext4-nojournal': ['mkfs.ext4', '-q', '-F', '-O', '^has_journal'],
  'ext4-inline': ['mkfs.ext4', '-q', '-F', '-O', 'inline_data'],
  xfs: ['mkfs.xfs', '-q', '-f'],
};

export interface AbOptions {
  /** The git revision the working tree's build is compared with. */
  old: string;
  pairs: number;
  /** Size of each run's file system image (sparse: only what a run writes takes space). */
  imageGiB: number;
  /**
   * The file system of the working tree's runs (--fs, a key of FILE_SYSTEMS; default ext4 with its journal, as a
   * deployment has; --no-journal is --fs ext4-nojournal: the two order small-file work differently, an O_DSYNC append
   * commits the journal).
   */
  fs: string;
  /** The file system of the old build's runs (--fs-old; default: the same). With --old HEAD, compares file systems. */
  fsOld: string;
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
  let fs = 'ext4';
  let fsOld: string | undefined;
  for (let i = 0; i < own.length; i++) {
    const name = own[i]!;
    if (name === '--no-journal') {
      fs = 'ext4-nojournal';
      continue;
    }
    const value = own[i + 1];
    if (!['--old', '--pairs', '--image-gib', '--fs', '--fs-old'].includes(name)) throw new Error(`unknown option ${name} (bench:get's options go after --)`);
    if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
    i++;
    if (name === '--old') old = value;
    else if (name === '--fs' || name === '--fs-old') {
      if (FILE_SYSTEMS[value] === undefined) throw new Error(`${name} takes one of ${Object.keys(FILE_SYSTEMS).join(', ')}, not ${value}`);
      if (name === '--fs') fs = value;
      else fsOld = value;
    } else {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`${name} takes a whole number from 1 to 100, not ${value}`);
      if (name === '--pairs') pairs = n;
      else imageGiB = n;
    }
  }
  if (old === undefined) throw new Error('--old <git revision> is required (the build to compare the working tree with)');
  return { old, pairs, imageGiB, fs, fsOld: fsOld ?? fs, benchArgs };
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
