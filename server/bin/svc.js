#!/usr/bin/env node
// Drive I/O (fsync, rename, open) runs on libuv's thread pool; the default of 4 threads caps small-object PUTs.
// 64: 16 PUTs in flight on 4 drives are 64 synced writes, and the file system commits concurrent syncs together
// (4 KiB PUTs at 16 in flight measured ~1.5x faster than with 16 threads; issue 9).
// It must be sized before the first fs call creates the pool, hence here, before anything is imported.
process.env.UV_THREADPOOL_SIZE ??= '64';
const { runSvc } = await import('../dist/src/main.js');
process.exit(await runSvc(process.argv));
