#!/usr/bin/env node
// Drive I/O (fsync, rename, open) runs on libuv's thread pool; the default of 4 threads caps small-object PUTs.
// It must be sized before the first fs call creates the pool, hence here, before anything is imported.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { runSvc } = await import('../dist/src/main.js');
process.exit(await runSvc(process.argv));
