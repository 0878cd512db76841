/**
 * `npm run bench:changelog`: what recording one change costs a local drive's change log (change-log.ts), which every
 * commit on the drive pays (4 per 4 KiB PUT on 4 drives), as the log fills to its 16,384 keys and keeps forgetting
 * the oldest. Keys shaped like the benchmark's PUTs (`small/16/<n>`: the key and its two ancestors). Prints one JSON
 * line per round of 40,000 changes: µs per change. Issue 9, tenth session: a Map delete-then-set took ~15 µs here
 * once full, the set-only map with its order list ~1.2 µs.
 */
import { ChangeLog } from '../src/storage/drive/change-log.js';
import { emit } from './report.js';
import { checkOptions } from './cli-options.js';

checkOptions('bench:changelog', `Usage: npm run bench:changelog
What recording one change costs a local drive's change log as it fills and forgets; one JSON line per round of
40,000 changes (µs per change). No options; BENCH_ROUNDS sets the rounds (default 4).
`, {});

const PER_ROUND = 40_000;
const log = new ChangeLog();
let n = 0;
for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 4); round++) {
  const t0 = performance.now();
  for (let i = 0; i < PER_ROUND; i++, n++) log.touch('bench', `small/16/${n}`);
  const ms = performance.now() - t0;
  emit({ scenario: 'change-log-touch', round, changes: PER_ROUND, usPerChange: +((ms * 1000) / PER_ROUND).toFixed(2) });
}
