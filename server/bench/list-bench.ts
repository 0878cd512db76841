/**
 * The LIST scenario alone, repeated (issue 9): `node --import tsx server/bench/list-bench.ts [--dir D] [--runs N]`.
 * Fills 10,000 empty keys once (a reused --dir keeps them), then pages through them N times with ListObjectsV2 and
 * prints one JSON line per run.
 */
import { existsSync } from 'node:fs';
import { LeanS3 } from './lean-client.js';
import { startSvc } from '../test/helpers/svc-process.js';
import { checkOptions, optionCount } from './cli-options.js';

checkOptions('list-bench', `Usage: node --import tsx server/bench/list-bench.ts [--dir D] [--runs N]
The LIST scenario alone: 10,000 empty keys written once (a reused --dir keeps them), then N listings of them with
ListObjectsV2; one JSON line per run. LIST_BENCH_NODE_ARGS: node options for the server.
Options:
  --dir D                where the drives go (kept between runs)
  --runs N               listings (default 5)
  -h, --help             this text
`, { values: ['--dir', '--runs'] });

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const credentials = { accessKey: 'LISTBENCHACCESSKEY01', secretKey: 'listbench-secret-key-0123456789abcdef' };
const dir = flag('--dir');
const runs = optionCount('list-bench', '--runs', 5);
const fresh = dir === undefined || !existsSync(`${dir}/drive1/.svc.sys`);
// The built server, as `npm run bench` runs it; LIST_BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p")
// are node options for the server only.
const nodeArgs = (process.env.LIST_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const svc = await startSvc({
  drives: 4, built: true, nodeArgs, env: { SVC_OBS_LOGGER_LEVEL: 'error' }, credentials, ...(dir === undefined ? {} : { dir }),
});
const lean = new LeanS3(svc.url, credentials.accessKey, credentials.secretKey);
try {
  if (fresh) {
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const c = new S3Client({ endpoint: svc.url, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: credentials.accessKey, secretAccessKey: credentials.secretKey } });
    await c.send(new CreateBucketCommand({ Bucket: 'listbench' }));
    c.destroy();
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < 10_000) {
        const i = next++;
        await lean.put('listbench', `list/${String(i).padStart(5, '0')}`, Buffer.alloc(0));
      }
    }));
  }
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    let keys = 0;
    let token: string | undefined;
    const pages: number[] = [];
    do {
      const p0 = performance.now();
      const page = await lean.listPage('listbench', 'list/', token);
      pages.push(Math.round(performance.now() - p0));
      keys += page.keys;
      token = page.next;
    } while (token);
    process.stdout.write(`${JSON.stringify({ run: r, keys, ms: Math.round(performance.now() - t0), pages })}\n`);
  }
} finally {
  lean.destroy();
  await svc.stop();
  if (dir === undefined) svc.cleanup();
}
