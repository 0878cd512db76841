/**
 * `npm run soak` (issue 10 Must show 2; a script, not part of CI): a real single-node server under steady load —
 * 8 clients doing PUT (4 KiB to 1 MiB), GET, multipart-free overwrites and DELETE over 200 keys — for SOAK_SECONDS
 * (default 600), sampling the server's RSS and open file descriptors every 10 s. Prints a JSON line per sample and,
 * at the end, a markdown table plus the trend (least-squares slope of RSS and fds over the second half, after
 * warm-up): a leak shows as a steady positive slope.
 */
import { readdirSync } from 'node:fs';
import { Agent } from 'node:http';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startSvc } from '../test/helpers/svc-process.js';
import { checkOptions } from './cli-options.js';

checkOptions('soak', `Usage: npm run soak
A single-node server under steady load (8 clients: PUT, GET, overwrites, DELETE over 200 keys) for SOAK_SECONDS
(default 600), sampling its RSS and open file descriptors every 10 s; a JSON line per sample, then a table and the
trend of both over the second half. No options.
`, {});
import { rssMiB } from './proc-stats.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const everyMs = Number(process.env.SOAK_SAMPLE_MS ?? 10_000);

function fds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

/** Least-squares slope of y over x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) { num += (xs[i]! - mx) * (ys[i]! - my); den += (xs[i]! - mx) ** 2; }
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<void> {
  const svc = await startSvc({ drives: 4, env: { SVC_OBS_LOGGER_LEVEL: 'error' } });
  const pid = svc.proc.pid ?? 0;
  const s3 = new S3Client({
    endpoint: svc.url, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: svc.accessKey, secretAccessKey: svc.secretKey },
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 16 }) }),
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const samples: { t: number; rssMiB: number; fds: number; ops: number; errors: number }[] = [];
  let ops = 0;
  let errors = 0;
  let running = true;
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'soak' }));
    const bodies = [4096, 65_536, 300_000, 1_048_576].map((n, i) => Buffer.alloc(n, 97 + i));
    const started = Date.now();
    const clients = Array.from({ length: 8 }, async (_, c) => {
      let i = c;
      while (running) {
        const key = `k${(i * 7919) % 200}`;
        try {
          const r = i % 10;
          if (r < 4) await s3.send(new PutObjectCommand({ Bucket: 'soak', Key: key, Body: bodies[i % bodies.length] }));
          else if (r < 9) {
            const got = await s3.send(new GetObjectCommand({ Bucket: 'soak', Key: key }));
            for await (const _chunk of got.Body as AsyncIterable<Buffer>) { /* drain */ }
          } else await s3.send(new DeleteObjectCommand({ Bucket: 'soak', Key: key }));
          ops++;
        } catch (err) {
          if ((err as Error).name !== 'NoSuchKey') errors++;
        }
        i += 8;
      }
    });
    while (Date.now() - started < seconds * 1000) {
      await new Promise((r) => setTimeout(r, everyMs));
      const s = { t: Math.round((Date.now() - started) / 1000), rssMiB: rssMiB(pid), fds: fds(pid), ops, errors };
      samples.push(s);
      process.stdout.write(`${JSON.stringify({ scenario: 'soak-sample', ...s })}\n`);
    }
    running = false;
    await Promise.all(clients);
  } finally {
    s3.destroy();
    await svc.stop();
    svc.cleanup();
  }
  const half = samples.slice(Math.floor(samples.length / 2));
  const t = half.map((s) => s.t / 60);
  const summary = {
    scenario: 'soak-summary', seconds, samples: samples.length, ops, errors,
    rssMiBFirst: samples[0]?.rssMiB, rssMiBLast: samples.at(-1)?.rssMiB, rssMiBMax: Math.max(...samples.map((s) => s.rssMiB)),
    rssSlopeMiBPerMinSecondHalf: +slope(t, half.map((s) => s.rssMiB)).toFixed(2),
    fdsFirst: samples[0]?.fds, fdsLast: samples.at(-1)?.fds, fdsSlopePerMinSecondHalf: +slope(t, half.map((s) => s.fds)).toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.stderr.write(`\n| t (s) | RSS (MiB) | open fds | ops | errors |\n| --- | --- | --- | --- | --- |\n${samples.map((s) => `| ${s.t} | ${s.rssMiB} | ${s.fds} | ${s.ops} | ${s.errors} |`).join('\n')}\n`);
}

await main();
