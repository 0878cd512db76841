/**
 * `npm run bench:disk [-- DIR]`: the disk's own write ceiling under DIR, without the server: 1, 4 and 8 streams at
 * once, each writing a new file with 1 MiB O_DIRECT writes from a page-aligned buffer (as the shard writer does) and
 * syncing it. One JSON line per stream count, MiB/s summed over the streams. Why: a PUT on a 4-drive EC:2 set (2 data
 * + 2 parity) writes twice its size, so the disk's ceiling halved bounds the 64 MiB PUT whatever the CPU does; on the
 * thirty-eighth session's machine ~1,050 MiB/s with one stream, 1,480–1,710 with 4–8 (the issue measured 2.3 GiB/s on
 * its day; the disk is shared and varies), so 740–855 MiB/s of PUT at most. DIR defaults to BENCH_DIR, else the temp
 * directory.
 */
import { constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageAlignedArrayBuffer } from '../src/storage/drive/direct-align.js';
import { checkOptions, envCount } from './cli-options.js';
import { emit } from './report.js';

checkOptions('bench:disk', `Usage: npm run bench:disk [-- DIR]
The disk's O_DIRECT write ceiling: 1, 4 and 8 streams of 1 MiB writes into new files on the file system of DIR
(default BENCH_DIR, else the temp directory), each synced; one JSON line per stream count. BENCH_MIB: MiB written
per stream (256).
`, { positional: 1 });

const WRITE = 1 << 20;
const mib = envCount('bench:disk', 'BENCH_MIB', 256, 'whole number of MiB');
const dir = await mkdtemp(join(process.argv[2] ?? process.env.BENCH_DIR ?? tmpdir(), 'svc-disk-'));
try {
  const buf = Buffer.from(pageAlignedArrayBuffer(WRITE)).fill(0x5a);
  for (const streams of [1, 4, 8]) {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: streams }, async (_, s) => {
      const fh = await open(join(dir, `s${streams}-${s}`), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT);
      try {
        for (let i = 0; i < mib; i++) await fh.write(buf, 0, WRITE, i * WRITE);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    }));
    const s = (performance.now() - t0) / 1000;
    emit({ scenario: 'disk-direct-write', streams, MiB: streams * mib, MiBPerSec: +((streams * mib) / s).toFixed(1) });
    await Promise.all(Array.from({ length: streams }, (_, i) => rm(join(dir, `s${streams}-${i}`), { force: true })));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
