/**
 * The bench scenarios (issue 9 "What to build"): 4 KiB PUT/GET ops/s with p50/p99 at concurrency 1/16/64, 1 MiB and
 * 64 MiB PUT/GET MiB/s at 1/4, a 1 GiB multipart upload, LIST of 10,000 keys, optionally 5 GiB PUT/GET. Each line
 * carries the CPU counters over the scenario (CpuFields: the servers' CPU, the busiest event loop, the machine's idle,
 * the servers' garbage collections).
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { LeanS3 } from './lean-client.js';
import { cpuSeconds, machineTicks, mainThreadSeconds, peakRssMiB, rssMiB, serverMiB, type MemoryMode } from './proc-stats.js';
import { gcCounter } from './gc-count.js';
import { emit, percentile } from './report.js';

/** What every scenario gets. */
export interface BenchContext {
  /** Sends through the target's endpoints round-robin (AWS SDK). */
  send: S3Client['send'];
  /** The lean client of the next endpoint, round-robin (the hot loops: lean-client.ts says why). */
  lean: () => LeanS3;
  /** One client (multipart uploads need a client object). */
  client: S3Client;
  bucket: string;
  /** Duration of each timed small-object scenario. */
  seconds: number;
  pids: () => number[];
  /** How the processes' memory adds up (see MemoryMode). */
  memory: MemoryMode;
  /** svc only: the servers' output, their `--trace-gc` log (Target.output). */
  output?: () => string[];
}

const EMPTY = Buffer.alloc(0);
const MiB = 1024 * 1024;

/**
 * Patterned body without allocating `size` bytes at once. In object mode each read hands out the pushed block itself:
 * in byte mode a read joined the blocks buffered so far into a new buffer, and the client copied every body once more
 * (~70 ms of client CPU per 64 MiB PUT at 4 in flight against ~17 for a Buffer body, CPU the server shares;
 * docs/performance.md, thirty-sixth session).
 */
function patternStream(size: number): Readable {
  const block = Buffer.alloc(MiB, 0x5a);
  let left = size;
  return new Readable({
    objectMode: true,
    highWaterMark: 2,
    read() {
      if (left <= 0) { this.push(null); return; }
      const n = Math.min(left, block.length);
      left -= n;
      this.push(n === block.length ? block : block.subarray(0, n));
    },
  });
}

async function drain(body: unknown): Promise<number> {
  let n = 0;
  for await (const c of body as AsyncIterable<Buffer>) n += c.length;
  return n;
}

/**
 * What bounded a scenario (issue 9, point 5), as counters over it: the servers' CPU (percent of one core, summed over
 * the processes), the busiest server process's main thread (its event loop), and the whole machine's idle share
 * (client and servers share the cores).
 */
export interface CpuFields {
  serverCpuPercent: number | null;
  mainThreadPercent: number | null;
  machineIdlePercent: number | null;
  /** Full (mark-compact) and young-generation collections over all the servers' isolates; null for a peer. */
  fullGcs: number | null;
  youngGcs: number | null;
}

/** Runs `fn` and measures the CPU counters over it. */
async function withCpu<T>(ctx: BenchContext, fn: () => Promise<T>): Promise<{ value: T; cpu: CpuFields; seconds: number }> {
  const pids = ctx.pids();
  const before = pids.map(cpuSeconds);
  const loopsBefore = pids.map(mainThreadSeconds);
  const ticksBefore = machineTicks();
  const gcs = ctx.output === undefined ? undefined : gcCounter(ctx.output);
  const gcMark = gcs?.mark();
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const used = pids.reduce((a, p, i) => a + cpuSeconds(p) - before[i]!, 0);
  const loop = Math.max(0, ...pids.map((p, i) => mainThreadSeconds(p) - loopsBefore[i]!));
  const ticks = machineTicks();
  const total = ticks.total - ticksBefore.total;
  const percent = (x: number): number => Math.round((x / seconds) * 100);
  const gc = gcMark === undefined ? undefined : gcs?.since(gcMark);
  return {
    value,
    seconds,
    cpu: {
      serverCpuPercent: pids.length === 0 ? null : percent(used),
      mainThreadPercent: pids.length === 0 ? null : percent(loop),
      machineIdlePercent: total > 0 ? Math.round(((ticks.idle - ticksBefore.idle) / total) * 100) : null,
      fullGcs: gc?.full ?? null,
      youngGcs: gc?.young ?? null,
    },
  };
}

async function timedOps(ctx: BenchContext, concurrency: number, op: (i: number) => Promise<void>): Promise<{ ops: number; lat: number[] }> {
  const lat: number[] = [];
  const deadline = performance.now() + ctx.seconds * 1000;
  let i = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const n = i++;
      const t0 = performance.now();
      await op(n);
      lat.push(performance.now() - t0);
    }
  }));
  return { ops: lat.length, lat: lat.sort((a, b) => a - b) };
}

/** 4 KiB PUT then GET (of the keys just written) at each concurrency. */
export async function smallObjects(ctx: BenchContext, concurrencies: readonly number[]): Promise<void> {
  const small = Buffer.alloc(4096, 0x61);
  // Warm-up (not measured): a server runs for days, so the JIT's first seconds of compiling the hot paths are
  // not part of its steady state; without this the first scenario measured the compiler. New keys, not 500 keys
  // written over and over: each overwrite frees an inode per drive, and on ext4 without a journal (this project's
  // machine) the allocator then steps over every inode freed in the last 1-6 minutes on each creation
  // (fs/ext4/ialloc.c recently_deleted, only without a journal): the PUTs measured next paid for the warm-up's
  // garbage, 724 → 987 PUT/s at 16 in flight (docs/performance.md, tenth session).
  await timedOps({ ...ctx, seconds: 3 }, 16, async (i) => {
    await ctx.lean().put(ctx.bucket, `warm/${i}`, small);
    await ctx.lean().get(ctx.bucket, `warm/${i}`);
  });
  for (const c of concurrencies) {
    const put = await withCpu(ctx, () => timedOps(ctx, c, async (i) => {
      await ctx.lean().put(ctx.bucket, `small/${c}/${i}`, small);
    }));
    emit({ scenario: 'put-4KiB', concurrency: c, ops: put.value.ops, opsPerSec: Math.round(put.value.ops / put.seconds),
      p50ms: +percentile(put.value.lat, 50).toFixed(2), p99ms: +percentile(put.value.lat, 99).toFixed(2), ...put.cpu });
    const count = put.value.ops;
    const get = await withCpu(ctx, () => timedOps(ctx, c, async (i) => {
      await ctx.lean().get(ctx.bucket, `small/${c}/${i % count}`);
    }));
    emit({ scenario: 'get-4KiB', concurrency: c, ops: get.value.ops, opsPerSec: Math.round(get.value.ops / get.seconds),
      p50ms: +percentile(get.value.lat, 50).toFixed(2), p99ms: +percentile(get.value.lat, 99).toFixed(2), ...get.cpu });
  }
}

/**
 * Times the GETs of a large-object scenario read every object (each pass in the same order): the 64 MiB GET at 4 in
 * flight read its 12 objects in ~0.5 s, and two runs a minute apart gave 1,417 and 1,181 MiB/s while six-second
 * rounds of `npm run bench:get` right after read 1,465-1,814 (docs/performance.md, thirty-fourth session). A server
 * gains nothing from the repeat that it did not have on the first pass: an object just written is as warm in a
 * page cache as it will be.
 */
export const GET_PASSES = 3;

/** What each stream of a large-object scenario writes (and reads) before it is measured: see largeObjects. */
const WARM_BYTES = 32 * MiB;

/** PUT then GET ({@link GET_PASSES} times) of `objects(c)` objects of `size` bytes at each concurrency, in MiB/s. */
export async function largeObjects(ctx: BenchContext, size: number, concurrencies: readonly number[], objects: (c: number) => number): Promise<void> {
  const label = size >= 1024 * MiB ? `${size / 1024 / MiB}GiB` : `${size / MiB}MiB`;
  for (const c of concurrencies) {
    const n = objects(c);
    const each = async (fn: (j: number) => Promise<void>): Promise<void> => {
      await Promise.all(Array.from({ length: c }, async (_, w) => { for (let j = w; j < n; j += c) await fn(j); }));
    };
    // Warm-up (not measured), WARM_BYTES per stream and at least one object: as for small objects, a server's first
    // large PUTs compile the hot paths and fill its buffer pools (stages of O_DIRECT writes are probed once each); the
    // 64 MiB scenario writes 3 objects per stream, so the first one weighed a third of its figure. With one object per
    // stream the 1 MiB PUT at 4 in flight measured the compiler: 112 MiB/s over the first 64 objects of a fresh
    // server, 213–237 over the next ones, svc and s3rver alike in kind (fortieth session).
    const warm = Math.max(1, Math.ceil(WARM_BYTES / size));
    await Promise.all(Array.from({ length: c }, async (_, w) => {
      for (let i = 0; i < warm; i++) {
        await ctx.lean().put(ctx.bucket, `${label}/warm/${c}/${w}/${i}`, patternStream(size), size);
        await ctx.lean().get(ctx.bucket, `${label}/warm/${c}/${w}/${i}`);
      }
    }));
    const put = await withCpu(ctx, () => each(async (j) => {
      await ctx.lean().put(ctx.bucket, `${label}/${c}/${j}`, patternStream(size), size);
    }));
    const rss = serverMiB(ctx.pids(), ctx.memory, rssMiB);
    emit({ scenario: `put-${label}`, concurrency: c, objects: n, MiBPerSec: +((n * size) / MiB / put.seconds).toFixed(1), ...put.cpu, serverRssMiB: rss });
    const get = await withCpu(ctx, async () => {
      for (let pass = 0; pass < GET_PASSES; pass++) {
        await each(async (j) => {
          const got = await ctx.lean().get(ctx.bucket, `${label}/${c}/${j}`);
          if (got !== size) throw new Error(`short read of ${label}/${c}/${j}: ${got} bytes`);
        });
      }
    });
    emit({
      scenario: `get-${label}`, concurrency: c, objects: n, passes: GET_PASSES,
      MiBPerSec: +((GET_PASSES * n * size) / MiB / get.seconds).toFixed(1), ...get.cpu,
    });
  }
}

/** A 1 GiB multipart upload (16 MiB parts, 4 in flight, lib-storage as applications use it) and its GET. */
export async function multipart(ctx: BenchContext): Promise<void> {
  const size = 1024 * MiB;
  const put = await withCpu(ctx, async () => {
    await new Upload({ client: ctx.client, params: { Bucket: ctx.bucket, Key: 'multipart/1GiB', Body: patternStream(size) }, partSize: 16 * MiB, queueSize: 4 }).done();
  });
  emit({ scenario: 'multipart-1GiB', parts: 64, MiBPerSec: +(1024 / put.seconds).toFixed(1), ...put.cpu });
  const get = await withCpu(ctx, async () => drain((await ctx.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: 'multipart/1GiB' }))).Body));
  if (get.value !== size) throw new Error(`short read of the multipart object: ${get.value}`);
  emit({ scenario: 'get-multipart-1GiB', MiBPerSec: +(1024 / get.seconds).toFixed(1), ...get.cpu });
}

/** Listings of 10,000 keys measured: the first one (every record read), then as many as the median is taken of. */
const LIST_RUNS = 5;

/**
 * Fills 10,000 empty keys at concurrency 32, then pages through them with ListObjectsV2 (1,000 per page)
 * {@link LIST_RUNS} times. `ms` is the median listing (as the figures are medians; later listings find
 * the keys unchanged, as a client listing a bucket again does); `firstMs` the first, right after the writes.
 */
export async function list10k(ctx: BenchContext): Promise<void> {
  const total = 10_000;
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < total) {
      const i = next++;
      await ctx.lean().put(ctx.bucket, `list/${String(i).padStart(5, '0')}`, EMPTY);
    }
  }));
  const runs: { ms: number; cpu: CpuFields }[] = [];
  for (let run = 0; run < LIST_RUNS; run++) {
    const r = await withCpu(ctx, async () => {
      let keys = 0;
      let token: string | undefined;
      do {
        const page = await ctx.lean().listPage(ctx.bucket, 'list/', token);
        keys += page.keys;
        token = page.next;
      } while (token);
      return keys;
    });
    if (r.value !== total) throw new Error(`listed ${r.value} of ${total} keys`);
    runs.push({ ms: r.seconds * 1000, cpu: r.cpu });
  }
  const median = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(LIST_RUNS / 2)]!;
  emit({
    scenario: 'list-10000', keys: total, ms: Math.round(median.ms), keysPerSec: Math.round(total / (median.ms / 1000)),
    firstMs: Math.round(runs[0]!.ms), runsMs: runs.map((x) => Math.round(x.ms)), ...median.cpu,
  });
}

/** 5 GiB PUT and GET: memory stays bounded whatever the object size. */
export async function huge(ctx: BenchContext): Promise<void> {
  const size = 5 * 1024 * MiB;
  const peak = (): number | null => serverMiB(ctx.pids(), ctx.memory, peakRssMiB);
  const before = peak();
  const put = await withCpu(ctx, () => ctx.lean().put(ctx.bucket, 'huge', patternStream(size), size));
  emit({ scenario: 'put-5GiB', MiBPerSec: +(size / MiB / put.seconds).toFixed(1), ...put.cpu, peakRssMiBBefore: before, peakRssMiB: peak() });
  const get = await withCpu(ctx, () => ctx.lean().get(ctx.bucket, 'huge'));
  if (get.value !== size) throw new Error(`short read of the 5 GiB object: ${get.value}`);
  emit({ scenario: 'get-5GiB', MiBPerSec: +(size / MiB / get.seconds).toFixed(1), ...get.cpu, peakRssMiB: peak() });
}
