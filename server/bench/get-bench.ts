/**
 * One GET (or PUT) scenario alone, repeated, for A/B comparisons of code (issue 9): `npm run bench:get -- [--size BYTES]
 * [--objects N] [--concurrency C] [--seconds S] [--rounds R] [--cold] [--fresh] [--put] [--mixed]`. Starts the built server
 * (1 node, 4 drives EC:2; BENCH_DIR puts the drives on a chosen file system), writes N objects of the size, then runs
 * R rounds of C-in-flight GETs over them (S seconds each, or one GET per object per round with --cold, which drops the
 * page cache before each round (needs root), or with --fresh, which writes each round's objects first). With --put a
 * round is S seconds of C-in-flight PUTs of new keys instead; with --mixed, C-in-flight GETs over the objects while C
 * more PUT new keys beside them (GETs' latency under writes: p50 and p99 in the line). `--processes 2` (GETs only) answers the issue's "use both
 * cores if it measures better": once the objects are written, a second server process opens the same drives and the
 * odd rounds spread the clients over both processes, the even rounds use the first alone (two processes writing the
 * same drives are not a supported deployment; for reads they show what sharing the load between processes gives).
 * One JSON line per round: ops/s, MiB/s, and the server's CPU per operation (user + kernel, and the kernel's part on
 * its own: the file system's share) and this client's (from /proc and process.cpuUsage), the figures that tell two
 * versions apart on a machine whose speed drifts (run them interleaved). A bad option combination: one line on
 * stderr, exit code 2.
 * BENCH_NODE_ARGS are node options for the server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p", "--trace-gc"); BENCH_KEEP=1
 * leaves the drives in place at the end.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { LeanS3 } from './lean-client.js';
import { cpuTimes } from './proc-stats.js';
import { startSvc } from '../test/helpers/svc-process.js';
import { checkLayoutEnv, checkOptions, optionCount } from './cli-options.js';
import { percentile } from './report.js';

checkOptions('bench:get', `Usage: npm run bench:get [-- options]
One GET (or PUT) scenario alone, repeated, for A/B comparisons (one node, 4 drives EC:2, the built server): writes the
objects, then runs rounds of GETs over them; one JSON line per round (ops/s, server and client CPU per operation).
Options:
  --size BYTES           object size (default 4096)
  --objects N            objects written first (default 256; 16 above 1 MiB)
  --concurrency C        requests in flight (default 16)
  --seconds S            length of a round (default 8)
  --rounds R             rounds (default 4)
  --cold                 one GET per object per round, the page cache dropped first (needs root)
  --fresh                each round writes its own objects first
  --put                  rounds of PUTs of new keys instead of GETs
  --mixed                rounds of GETs with as many PUTs of new keys in flight beside them (GET p50/p99)
  --processes 1|2        2: a second server process on the same drives takes half the GETs
  -h, --help             this text
Environment: BENCH_DIR (where the drives go), BENCH_NODE_ARGS (node options for the server), BENCH_KEEP=1 (keep the drives).
`, { flags: ['--cold', '--fresh', '--put', '--mixed'], values: ['--size', '--objects', '--concurrency', '--seconds', '--rounds', '--processes'] });
checkLayoutEnv('bench:get');

// Counts are whole numbers of at least 1: anything else is one line and exit 2 (it crashed in Buffer.alloc before).
const flag = (name: string, fallback: number): number => optionCount('bench:get', name, fallback);

const size = flag('--size', 4096);
const count = flag('--objects', size > 1024 * 1024 ? 16 : 256);
const concurrency = flag('--concurrency', 16);
const seconds = flag('--seconds', 8);
const rounds = flag('--rounds', 4);
const cold = process.argv.includes('--cold');
/** --fresh: each round first writes its own objects (as `npm run bench` reads objects right after writing them). */
const fresh = process.argv.includes('--fresh');
const put = process.argv.includes('--put');
const mixed = process.argv.includes('--mixed');
const processes = flag('--processes', 1);
if (processes !== 1 && (processes !== 2 || put || cold || fresh)) {
  process.stderr.write('bench:get: --processes takes 1 or 2, and 2 only for GETs without --put, --cold or --fresh\n');
  process.exit(2);
}
if (mixed && (put || cold || fresh || processes !== 1)) {
  process.stderr.write('bench:get: --mixed goes without --put, --cold, --fresh and --processes\n');
  process.exit(2);
}
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const dir = process.env.BENCH_DIR === undefined ? undefined : mkdtempSync(join(process.env.BENCH_DIR, 'svc-bench-'));

const env = { SVC_OBS_LOGGER_LEVEL: 'error', UV_THREADPOOL_SIZE: '64' };
const svc = await startSvc({ drives: 4, dir, built: true, nodeArgs, env });
const lean = new LeanS3(svc.url, svc.accessKey, svc.secretKey);
let second: Awaited<ReturnType<typeof startSvc>> | undefined;
try {
  await lean.send('PUT', 'getbench', '');
  const body = Buffer.alloc(size, 0x61);
  if (!put) for (let i = 0; i < count; i++) await lean.put('getbench', `k/${i}`, body);
  if (processes === 2) second = await startSvc({ drives: 4, dir: svc.dir, built: true, nodeArgs, env, credentials: { accessKey: svc.accessKey, secretKey: svc.secretKey } });
  const leanB = second === undefined ? lean : new LeanS3(second.url, svc.accessKey, svc.secretKey);
  const pids = [svc.proc.pid ?? 0, ...(second === undefined ? [] : [second.proc.pid ?? 0])];
  const serverCpu = (): { user: number; system: number } => pids.map(cpuTimes).reduce((a, b) => ({ user: a.user + b.user, system: a.system + b.system }));
  for (let round = 0; round < rounds; round++) {
    const both = second !== undefined && round % 2 === 1;
    const prefix = fresh || put ? `r${round}/` : '';
    if (fresh && !put) {
      let next = 0;
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < count) await lean.put('getbench', `${prefix}k/${next++}`, body);
      }));
    }
    if (cold) execSync('sync; echo 3 > /proc/sys/vm/drop_caches');
    const t0 = performance.now();
    const server0 = serverCpu();
    const client0 = process.cpuUsage();
    const end = Date.now() + seconds * 1000;
    let ops = 0;
    let puts = 0;
    const getMs: number[] = [];
    let stopped = false;
    const writers = !mixed ? [] : Array.from({ length: concurrency }, async () => {
      while (!stopped && Date.now() < end) await lean.put('getbench', `r${round}/p/${puts++}`, body);
    });
    // A failed GET ends the round: the writers stop at their next PUT, and a writer's own failure is reported by the
    // Promise.all below instead of as an unhandled rejection.
    for (const w of writers) w.catch(() => undefined);
    await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
      const s3 = both && w % 2 === 1 ? leanB : lean;
      if (put) {
        while (Date.now() < end) await lean.put('getbench', `${prefix}k/${ops++}`, body);
        return;
      }
      while (cold || fresh ? ops < count : Date.now() < end) {
        const g0 = performance.now();
        const got = await s3.get('getbench', `${prefix}k/${ops++ % count}`);
        if (mixed) getMs.push(performance.now() - g0);
        if (got !== size) throw new Error(`short read: ${got} of ${size} bytes`);
      }
    })).finally(() => { stopped = true; });
    await Promise.all(writers);
    const s = (performance.now() - t0) / 1000;
    const client = process.cpuUsage(client0);
    const server = serverCpu();
    const perOp = (cpuS: number): number => +((cpuS * 1000) / ops).toFixed(3);
    getMs.sort((a, b) => a - b);
    const latency = !mixed ? {} : {
      getP50Ms: +percentile(getMs, 50).toFixed(2), getP99Ms: +percentile(getMs, 99).toFixed(2), putOpsPerSec: Math.round(puts / s),
    };
    console.log(JSON.stringify({
      scenario: `${put ? 'put' : mixed ? 'mixed' : 'get'}-${size}`, round, ...(second === undefined ? {} : { processes: both ? 2 : 1 }), concurrency, ops, opsPerSec: Math.round(ops / s), MiBPerSec: +((ops * size) / 1048576 / s).toFixed(1),
      serverCpuMsPerOp: perOp(server.user + server.system - server0.user - server0.system), serverKernelMsPerOp: perOp(server.system - server0.system),
      clientCpuMsPerOp: perOp((client.user + client.system) / 1e6), ...latency,
    }));
  }
} finally {
  await second?.stop();
  await svc.stop();
  // BENCH_KEEP=1: no deletions for the next interleaved run to pay for (README, ext4 without a journal).
  if (process.env.BENCH_KEEP !== '1') svc.cleanup();
}
