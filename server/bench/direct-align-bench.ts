/**
 * `npm run bench:align [-- DIR]`: what the address of an O_DIRECT write's memory costs on the disk under DIR, without the
 * server. 128 MiB (BENCH_MIB) of 1 MiB direct writes into a new file, from each 512-byte step of one page-aligned
 * buffer (storage/drive/direct-align.ts pageAlignedArrayBuffer): offset 0 is page-aligned, the seven others are aligned
 * to the logical block only, which is all the kernel checks on a disk with 512-byte logical blocks, so they are what a
 * probe for "accepted" finds in ordinary (malloc'd) memory. One JSON line per offset. On the twenty-eighth session's
 * virtio disk: 303 MiB/s page-aligned, 103–116 not (docs/performance.md), the reason the shard writer's stages and
 * the read buffers are allocated page-aligned. DIR defaults to BENCH_DIR, else the temp directory.
 */
import { constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALIGN, pageAlignedArrayBuffer } from '../src/storage/drive/direct-align.js';
import { checkOptions, envCount } from './cli-options.js';
import { emit } from './report.js';

checkOptions('bench:align', `Usage: npm run bench:align [-- DIR]
1 MiB O_DIRECT writes from a page-aligned buffer and from the seven 512-byte steps past it, on the file system of DIR
(default BENCH_DIR, else the temp directory); one JSON line per offset. BENCH_MIB: MiB written per offset (128).
`, { positional: 1 });

const WRITE = 1 << 20;
const mib = envCount('bench:align', 'BENCH_MIB', 128, 'whole number of MiB');
const dir = await mkdtemp(join(process.argv[2] ?? process.env.BENCH_DIR ?? tmpdir(), 'svc-align-'));
try {
  const buf = Buffer.from(pageAlignedArrayBuffer(WRITE + ALIGN)).fill(0x5a);
  for (let offset = 0; offset < ALIGN; offset += 512) {
    const fh = await open(join(dir, `f${offset}`), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT);
    try {
      const t0 = performance.now();
      for (let i = 0; i < mib; i++) await fh.write(buf, offset, WRITE, i * WRITE);
      await fh.datasync();
      const s = (performance.now() - t0) / 1000;
      emit({ scenario: 'direct-write-1MiB', offset, pageAligned: offset === 0, MiB: mib, MiBPerSec: +(mib / s).toFixed(1) });
    } catch (err) {
      // EINVAL: this file system refuses O_DIRECT, or wants a larger logical block than the offset's alignment.
      emit({ scenario: 'direct-write-1MiB', offset, pageAligned: offset === 0, error: (err as NodeJS.ErrnoException).code ?? String(err) });
    } finally {
      await fh.close();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
}
