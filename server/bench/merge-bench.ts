/**
 * `npm run bench:merge [-- --dir DIR] [--keys N]`: what merging a drive's key-index runs costs in memory and time
 * (storage/drive/key-index/drive-index.ts; issue 9: memory stays bounded whatever the index's size). Puts N keys
 * (default 2,000,000: a 100-byte record each) into a DriveIndex as its worker does, a flush every 16,384 entries
 * (the runs merged four at a time as they come alike in size, up to runs of N/4 and more), and reports the flushes'
 * time (the longest is the largest merge) and the process's peak RSS after the first flush and at the end
 * (`process.resourceUsage().maxRSS`): what the merges added. One JSON line.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DriveIndex, FLUSH_ENTRIES } from '../src/storage/drive/key-index/drive-index.js';
import { emit } from './report.js';
import { checkOptions, optionValue } from './cli-options.js';

checkOptions('bench:merge', `Usage: npm run bench:merge [-- options]
What merging a drive's key-index runs costs: N keys put and flushed every 16,384 as the index worker does, the runs
merged as they come alike; the flushes' time and the peak RSS the merges added.
Options:
  --dir DIR              where the index goes (default /var/tmp/svc-merge-bench; removed after)
  --keys N               keys in all (default 2000000)
  -h, --help             this text
`, { values: ['--dir', '--keys'] });


const dir = join(optionValue('--dir', '/var/tmp/svc-merge-bench'), `index-${process.pid}`);
const keys = Number(optionValue('--keys', '2000000'));
if (!Number.isInteger(keys) || keys < 4) {
  process.stderr.write('bench:merge: --keys must be an integer of at least 4\n');
  process.exit(2);
}

const record = Buffer.alloc(100, 7);
mkdirSync(dir, { recursive: true });
try {
  const ix = new DriveIndex(dir);
  let longest = 0;
  let total = 0;
  let baseline = 0;
  for (let put = 0; put < keys;) {
    const n = Math.min(FLUSH_ENTRIES, keys - put);
    // Keys in a scattered order (a multiplicative permutation), so that every run spans the whole key range.
    ix.put(Array.from({ length: n }, (_, i) => ({ volume: 'bkt', key: `dir/${String(((put + i) * 2654435761) % 4294967291).padStart(10, '0')}`, meta: record })));
    put += n;
    const t0 = process.hrtime.bigint();
    ix.flush();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    total += ms;
    longest = Math.max(longest, ms);
    if (baseline === 0) baseline = process.resourceUsage().maxRSS;
  }
  const stats = ix.runStats;
  ix.close();
  emit({
    scenario: 'key-index flushes and merges', keys, runs: stats.runs, entries: stats.entries, flushMsTotal: Math.round(total),
    longestFlushMs: Math.round(longest), peakRssAfterFirstFlushMiB: Math.round(baseline / 1024),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
