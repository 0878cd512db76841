/**
 * `npm run bench`: the project's benchmark (issue 9). Starts the system under test, runs the scenarios of
 * scenarios.ts and prints one JSON line per scenario on stdout, then the same as a markdown table on stderr.
 *
 *   npm run bench                       # one node, 4 drives (EC:2); BENCH_DRIVES=1 for one drive
 *   npm run bench -- --cluster          # 4 nodes × 4 drives on 127.0.0.1–4 (needs root: mount namespaces)
 *   npm run bench -- --endpoint http://127.0.0.1:19120 --access-key S3RVER --secret-key S3RVER --pid 1234[,5678…]
 *                                       # any S3 endpoint, e.g. a peer from ../shared/peers, in the same run
 *                                       # (several pids: the processes of one server, memory and CPU summed)
 *   npm run bench -- --ceiling --only small,64MiB
 *                                       # the ceiling server (ceiling-server.ts): what the machine allows
 *   --large adds 5 GiB PUT/GET; --quick runs concurrency 1/16 and skips 1 GiB multipart (a smoke run);
 *   --only small,1MiB,64MiB,multipart,list runs those groups only.
 * Env: BENCH_DRIVES (default 4), BENCH_SECONDS per timed small-object scenario (default 5).
 */
import { Agent } from 'node:http';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LeanS3 } from './lean-client.js';
import { peakRssMiB, rssAnonMiB, rssFileMiB, rssMiB, serverMiB } from './proc-stats.js';
import { emit, markdownTable } from './report.js';
import { huge, largeObjects, list10k, multipart, smallObjects, type BenchContext } from './scenarios.js';
import { ceiling, external, fourNodes, singleNode, type Target } from './targets.js';
import { checkLayoutEnv, checkOptions } from './cli-options.js';

const MiB = 1024 * 1024;
const GROUPS = ['small', '1MiB', '64MiB', 'multipart', 'list'];

const USAGE = `Usage: npm run bench [-- options]
The project's benchmark (issue 9): 4 KiB PUT/GET at 1/16/64 in flight, 1 MiB and 64 MiB PUT/GET at 1/4, a 1 GiB
multipart upload, LIST of 10,000 keys, the server's RSS and CPU. One JSON line per scenario on stdout, a markdown
table on stderr. Default target: one node, 4 drives (EC:2).
Options:
  --cluster              4 nodes x 4 drives on 127.0.0.1-4 (needs root: mount namespaces)
  --endpoint URL         any S3 endpoint instead (a peer), with --access-key KEY --secret-key SECRET and
                         --pid PID[,PID...] (the server's processes: memory and CPU summed)
  --ceiling              the ceiling server (what the machine allows), with --only small,1MiB,64MiB or a part of it
  --only GROUPS          run only these of ${GROUPS.join(',')} (comma-separated)
  --quick                concurrency 1/16 and no 1 GiB multipart (a smoke run)
  --large                add a 5 GiB PUT and GET
  -h, --help             this text
Environment: BENCH_DRIVES (default 4), BENCH_SECONDS (default 5), BENCH_DIR (where the drives go), BENCH_NODE_ARGS
(node options for each server process), BENCH_ACCESS_KEY / BENCH_SECRET_KEY (for --endpoint).
`;
checkOptions('bench', USAGE, { flags: ['--cluster', '--ceiling', '--quick', '--large'], values: ['--only', '--endpoint', '--access-key', '--secret-key', '--pid'] });
checkLayoutEnv('bench');

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const unknownGroup = flag('--only')?.split(',').find((g) => !GROUPS.includes(g));
if (unknownGroup !== undefined) {
  process.stderr.write(`bench: --only takes ${GROUPS.join(', ')} (comma-separated), not ${JSON.stringify(unknownGroup)}\n`);
  process.exit(2);
}

async function target(): Promise<Target> {
  const endpoint = flag('--endpoint');
  if (endpoint !== undefined) {
    const pids = (flag('--pid') ?? '').split(',').filter((p) => p !== '').map(Number);
    return external(endpoint, flag('--access-key') ?? process.env.BENCH_ACCESS_KEY ?? '', flag('--secret-key') ?? process.env.BENCH_SECRET_KEY ?? '', pids);
  }
  if (process.argv.includes('--ceiling')) {
    const only = (flag('--only') ?? '').split(',');
    if (!only.every((g) => ['small', '1MiB', '64MiB'].includes(g))) {
      process.stderr.write('bench: --ceiling measures objects only (no listing or multipart); add --only small,1MiB,64MiB or a part of it\n');
      process.exit(2);
    }
    return ceiling();
  }
  return process.argv.includes('--cluster') ? fourNodes() : singleNode(Number(process.env.BENCH_DRIVES ?? 4));
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const groups = flag('--only')?.split(',');
  const on = (g: string): boolean => groups === undefined || groups.includes(g);
  const t = await target();
  const clients = t.urls.map((url) => new S3Client({
    endpoint: url, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 128 }) }),
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  }));
  const leans = t.urls.map((url) => new LeanS3(url, t.accessKey, t.secretKey));
  let turn = 0;
  let leanTurn = 0;
  const ctx: BenchContext = {
    // Requests are spread over the nodes round-robin (one endpoint: always the same client).
    send: ((cmd: never) => clients[turn++ % clients.length]!.send(cmd)) as S3Client['send'],
    lean: () => leans[leanTurn++ % leans.length]!,
    client: clients[0]!,
    bucket: `bench-${Date.now().toString(36)}`,
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    pids: t.pids,
    memory: t.memory,
    ...(t.output === undefined ? {} : { output: t.output }),
  };
  const rss = (): number | null => serverMiB(t.pids(), t.memory, rssMiB);
  const peak = (): number | null => serverMiB(t.pids(), t.memory, peakRssMiB);
  const over = t.memory === 'sum' ? 'summed over the server\'s processes' : 'largest over the nodes';
  emit({ scenario: 'layout', ...t.layout, node: process.version, seconds: ctx.seconds });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    emit({ scenario: 'idle', serverRssMiB: rss(), note: `${over}, 2 s after start` });
    await ctx.send(new CreateBucketCommand({ Bucket: ctx.bucket }));
    if (on('small')) {
      await smallObjects(ctx, quick ? [1, 16] : [1, 16, 64]);
      emit({
        scenario: 'after-small-objects', serverPeakRssMiB: peak(), rssAnonMiB: serverMiB(t.pids(), t.memory, rssAnonMiB),
        rssFileMiB: serverMiB(t.pids(), t.memory, rssFileMiB), note: 'peak RSS incl. the 64-way 4 KiB load; RSS now: anonymous and mapped files',
      });
    }
    // 64 objects per stream: at 16 the 1 MiB PUT at 4 in flight lasted ~0.3 s (fortieth session).
    if (on('1MiB')) await largeObjects(ctx, MiB, [1, 4], (c) => c * 64);
    if (on('64MiB')) await largeObjects(ctx, 64 * MiB, [1, 4], (c) => c * 3);
    if (!quick && on('multipart')) await multipart(ctx);
    if (on('list')) await list10k(ctx);
    if (process.argv.includes('--large')) await huge(ctx);
    emit({ scenario: 'server-memory', peakRssMiB: peak(), rssMiB: rss(), note: over });
  } finally {
    for (const c of clients) c.destroy();
    for (const l of leans) l.destroy();
    await t.stop();
    process.stderr.write(`\n${markdownTable()}\n`);
  }
}

await main();
