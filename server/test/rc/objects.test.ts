/** Everyday object commands end to end against a real single-node server, compared byte for byte (SHA-256). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { run } from '../helpers/run.js';
import { rcNodeArgs, rcRunner, type RcRunner } from './helpers.js';

let svc: SvcProcess;
let r: RcRunner;
let work: string;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const shaFile = (p: string) => sha(readFileSync(p));

function tree(dir: string, out: Map<string, string> = new Map(), base = dir): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) tree(p, out, base);
    else out.set(relative(base, p), shaFile(p));
  }
  return out;
}

before(async () => {
  svc = await startSvc({ drives: 4 });
  r = rcRunner();
  work = mkdtempSync(join(tmpdir(), 'rc-objects-'));
  await r.rcOk(['alias', 'set', 'x', svc.url, svc.accessKey, svc.secretKey]);
});
after(async () => {
  await svc.stop();
  svc.cleanup();
  r.cleanup();
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

test('mb, cp local→remote→local (single part and multipart), cat, stat, ls', async () => {
  assert.match((await r.rcOk(['mb', 'x/alpha'])).stdout, /Bucket created successfully `x\/alpha`/);
  assert.equal((await r.rc(['mb', 'x/alpha'])).code, 1);
  await r.rcOk(['mb', '--ignore-existing', 'x/alpha']);

  const small = join(work, 'hello.txt');
  writeFileSync(small, 'hello from rc\n');
  const big = join(work, 'big.bin');
  writeFileSync(big, randomBytes(40 * 1024 * 1024 + 123)); // above the 16 MiB part size: a multipart upload
  await r.rcOk(['cp', small, 'x/alpha/docs/']);
  const up = await r.rcOk(['cp', big, 'x/alpha/data/big.bin']);
  assert.match(up.stdout, /Copied 1 file \(40\.0 MiB\)/);
  assert.equal(up.stderr, '', 'no progress bar when stderr is not a terminal');

  assert.equal((await r.rcOk(['cat', 'x/alpha/docs/hello.txt'])).stdout, 'hello from rc\n');
  const back = join(work, 'back');
  mkdirSync(back);
  await r.rcOk(['cp', 'x/alpha/data/big.bin', `${back}/`]);
  await r.rcOk(['cp', 'x/alpha/docs/hello.txt', join(back, 'renamed.txt')]);
  assert.equal(shaFile(join(back, 'big.bin')), shaFile(big));
  assert.equal(shaFile(join(back, 'renamed.txt')), shaFile(small));

  const st = JSON.parse((await r.rcOk(['stat', '--json', 'x/alpha/data/big.bin'])).stdout) as { type: string; size: number; etag: string };
  assert.equal(st.type, 'file');
  assert.equal(st.size, 40 * 1024 * 1024 + 123);
  assert.match(st.etag, /-3$/, 'three 16 MiB parts');
  assert.match((await r.rcOk(['stat', 'x/alpha/docs/hello.txt'])).stdout, /Size +: 14 B \(14 bytes\)/);

  const buckets = (await r.rcOk(['ls', 'x'])).stdout;
  assert.match(buckets, /\] +0 B alpha\/\n/);
  const top = (await r.rcOk(['ls', 'x/alpha'])).stdout.trim().split('\n');
  assert.deepEqual(top.map((l) => l.split(' ').at(-1)), ['data/', 'docs/']);
  const all = (await r.rcOk(['ls', '--recursive', '--json', 'x/alpha'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { key: string; size: number; type: string });
  assert.deepEqual(all.map((e) => [e.type, e.key, e.size]), [['file', 'data/big.bin', 40 * 1024 * 1024 + 123], ['file', 'docs/hello.txt', 14]]);
});

test('cp --recursive both ways keeps the tree and every byte; remote→remote is a server-side copy', async () => {
  const src = join(work, 'tree');
  for (const [p, n] of [['a.bin', 1000], ['sub/b.bin', 70_000], ['sub/deeper/c d.bin', 5], ['sub/deeper/ünï.txt', 300]] as const) {
    mkdirSync(join(src, p, '..'), { recursive: true });
    writeFileSync(join(src, p), randomBytes(n));
  }
  await r.rcOk(['mb', 'x/beta']);
  assert.match((await r.rcOk(['cp', '-r', src, 'x/beta/'])).stdout, /Copied 4 files/);
  const keys = (await r.rcOk(['ls', '-r', '--json', 'x/beta'])).stdout.trim().split('\n').map((l) => (JSON.parse(l) as { key: string }).key);
  assert.deepEqual(keys, ['tree/a.bin', 'tree/sub/b.bin', 'tree/sub/deeper/c d.bin', 'tree/sub/deeper/ünï.txt']);

  await r.rcOk(['cp', '-r', 'x/beta/tree', 'x/alpha/copied/']);
  const out = join(work, 'down');
  await r.rcOk(['cp', '-r', 'x/alpha/copied/tree/', `${out}/`]);
  assert.deepEqual(tree(out), tree(src));

  // Across aliases the bytes are streamed from one to the other (here two aliases of the same server).
  await r.rcOk(['alias', 'set', 'y', svc.url, svc.accessKey, svc.secretKey]);
  await r.rcOk(['cp', 'x/beta/tree/sub/b.bin', 'y/alpha/streamed.bin']);
  await r.rcOk(['cp', 'y/alpha/streamed.bin', join(work, 'streamed.bin')]);
  assert.equal(shaFile(join(work, 'streamed.bin')), shaFile(join(src, 'sub/b.bin')));
  await r.rcOk(['rm', 'y/alpha/streamed.bin']);

  assert.equal((await r.rc(['cp', src, 'x/beta/'])).code, 2, 'a directory needs --recursive');
  assert.equal((await r.rc(['cp', src, join(work, 'elsewhere')])).code, 2, 'local to local is refused');
});

test('rc cat into a pipe closed early (| head) stops quietly with exit 0', async () => {
  const q = (x: string) => `'${x.replaceAll("'", "'\\''")}'`;
  const cmd = [process.execPath, ...rcNodeArgs()].map(q).join(' ');
  const res = await run('bash', ['-c', `set -o pipefail; ${cmd} | head -c 5 >/dev/null`], {
    env: { ...r.env(), RC_TEST_ARGS: JSON.stringify(['cat', 'x/alpha/data/big.bin']) },
  });
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stderr, '');
});

test('share download gives a URL that plain fetch can download without credentials', async () => {
  const url = (await r.rcOk(['share', 'download', '--expire', '1h', 'x/alpha/data/big.bin'])).stdout.trim();
  assert.match(url, /X-Amz-Expires=3600/);
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(sha(Buffer.from(await res.arrayBuffer())), shaFile(join(work, 'big.bin')));
  assert.equal((await r.rc(['share', 'download', '--expire', '8d', 'x/alpha/data/big.bin'])).code, 2);
  assert.equal((await r.rc(['share', 'download', 'x/alpha/nope'])).code, 7);
});

test('missing things exit 7; rm and rb with and without --force', async () => {
  for (const args of [['cat', 'x/alpha/nope'], ['stat', 'x/alpha/nope'], ['rm', 'x/alpha/nope'], ['ls', 'x/nosuchbucket'], ['cp', 'x/alpha/nope', join(work, 'n')], ['cp', join(work, 'hello.txt'), 'x/nosuchbucket/k']]) {
    const res = await r.rc(args);
    assert.equal(res.code, 7, `${args.join(' ')}: ${res.stderr}`);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
  }
  await r.rcOk(['rm', 'x/alpha/docs/hello.txt']);
  assert.equal((await r.rc(['stat', 'x/alpha/docs/hello.txt'])).code, 7);
  assert.equal((await r.rc(['rm', '-r', 'x/alpha/copied/'])).code, 2, '--recursive needs --force');
  assert.match((await r.rcOk(['rm', '-r', '--force', 'x/alpha/copied/'])).stdout, /Removed 4 objects/);
  assert.equal((await r.rcOk(['ls', '-r', 'x/alpha/copied/'])).stdout, '');
  const notEmpty = await r.rc(['rb', 'x/alpha']);
  assert.equal(notEmpty.code, 1);
  assert.match(notEmpty.stderr, /not empty .*--force/);
  await r.rcOk(['rb', '--force', 'x/alpha']);
  await r.rcOk(['rb', '--force', 'x/beta']);
  assert.equal((await r.rcOk(['ls', 'x'])).stdout, '');
  assert.equal((await r.rc(['rb', 'x/alpha'])).code, 7);
});
