#!/usr/bin/env -S node --heap-growing-percent=100 --incremental-marking-hard-trigger=100
// --heap-growing-percent=100 (also in the Dockerfile's ENTRYPOINT and scripts/start.sh; a test keeps them equal): after
// each full GC, V8 lets the old generation grow to twice what survived it (at least 8 MiB more) before the next. Its
// own factor follows the old generation's allocation rate, which is low here (bodies live outside the heap, in
// ArrayBuffers), so it set the limit only ~24 MiB above the ~20-45 MiB live heap, and started the next incremental
// marking within ~80 ms of each full GC: 64 MiB PUTs at 4 in flight ran 11-28 full GCs per 12 objects (V8's helper
// threads busy too) at 290-350 MiB/s, against 0-1 and 450-470 MiB/s with this option (docs/performance.md,
// seventeenth session). A fixed floor (--initial-old-space-size=64) cured it only while the live heap stayed small.
// --incremental-marking-hard-trigger=100: V8 starts marking the old generation once it reaches that limit, not
// whenever the room left under it is less than the young generation (16 MiB). V8 counts the growth of memory outside
// the heap since the last full GC as old-generation room used, and a body streamed in 64 KiB ArrayBuffers grows it by
// up to 32 MiB between two scavenges (V8 scavenges at 32 MiB of young ArrayBuffers): with ~36 MiB of room, 64 MiB PUTs
// at 4 in flight ran one full GC per object (87 for ~100 objects), 268 ms of server CPU each; with this option 9, and
// 220-259 ms, 7-15 % faster, the peak RSS of the 64-way 4 KiB load unchanged (docs/performance.md, thirty-sixth session).
// V8 reads them when it sizes the heap, so they are node options; node refuses them in NODE_OPTIONS.
// Drive I/O (fsync, rename, open) runs on libuv's thread pool; the default of 4 threads caps small-object PUTs.
// 64: 16 PUTs in flight on 4 drives are 64 synced writes, and the file system commits concurrent syncs together
// (4 KiB PUTs at 16 in flight measured ~1.5x faster than with 16 threads; issue 9).
// It must be sized before the first fs call creates the pool, hence here, before anything is imported, and this file
// is CommonJS (server/bin/package.json): node reads a CommonJS entry synchronously, but an ES module entry through its
// loader's asynchronous reads, which start the pool at its default size before the entry's first line runs (an ES
// module entry here ran with 4 threads, whatever it assigned; docs/performance.md, twenty-eighth session).
process.env.UV_THREADPOOL_SIZE ??= '64';
import('../dist/src/main.js')
  .then(({ runSvc }) => runSvc(process.argv))
  .then((code) => process.exit(code));
