/**
 * Must show 3 (issue 5): `rc cp` of a 300 MiB file draws a progress bar on a terminal and nothing when piped.
 * The terminal is a real pseudo-terminal from util-linux `script`; the file is written in 1 MiB chunks.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { rcNodeArgs, rcRunner, type RcRunner } from './helpers.js';

const MiB = 1024 * 1024;
const SIZE = 300 * MiB;
let svc: SvcProcess;
let r: RcRunner;
let work: string;
let file: string;

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

before(async () => {
  svc = await startSvc({ drives: 4 });
  r = rcRunner();
  work = mkdtempSync(join(tmpdir(), 'rc-progress-'));
  file = join(work, 'big.bin');
  const fd = openSync(file, 'w');
  const chunk = randomBytes(MiB);
  for (let i = 0; i < SIZE / MiB; i++) { chunk.writeUInt32BE(i, 0); writeSync(fd, chunk); }
  closeSync(fd);
  await r.rcOk(['alias', 'set', 'x', svc.url, svc.accessKey, svc.secretKey]);
  await r.rcOk(['mb', 'x/big']);
});
after(async () => {
  await svc.stop();
  svc.cleanup();
  r.cleanup();
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

test('on a pseudo-terminal, rc cp of 300 MiB redraws a percentage bar with \\r and ends at 100%', async () => {
  const cmd = [process.execPath, ...rcNodeArgs()].map(shellQuote).join(' ');
  const res = await run('script', ['-qfec', cmd, '/dev/null'], {
    env: { ...r.env(), RC_TEST_ARGS: JSON.stringify(['cp', file, 'x/big/tty.bin']) }, timeoutMs: 300_000,
  });
  assert.equal(res.code, 0, res.stdout + res.stderr);
  const frames = res.stdout.split('\r').filter((f) => /^ *\d+\.\d% \[[=> ]{20}\] .* \/ 300\.0 MiB .*\/s {2}ETA /.test(f));
  assert.ok(frames.length >= 2, `expected several redrawn frames:\n${JSON.stringify(res.stdout)}`);
  assert.match(frames[0] ?? '', /^ {2}0\.0% /);
  assert.match(frames.at(-1) ?? '', /^100\.0% \[={20}\] 300\.0 MiB \/ 300\.0 MiB/);
  assert.match(res.stdout, /Copied 1 file \(300\.0 MiB\)/);
});

test('piped, the same copy writes no bar and no control characters', async () => {
  const res = await r.rcOk(['cp', file, 'x/big/piped.bin']);
  assert.equal(res.stderr, '');
  assert.equal(res.stdout, 'Copied 1 file (300.0 MiB).\n');
  for (const key of ['tty.bin', 'piped.bin']) {
    const st = JSON.parse((await r.rcOk(['stat', '--json', `x/big/${key}`])).stdout) as { size: number; etag: string };
    assert.equal(st.size, SIZE);
    assert.match(st.etag, /-19$/, 'a multipart upload of 19 parts of 16 MiB');
  }
});
