import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeployKitError } from '../../src/errors.js';
import { createCapturedOutput, createTestDeps } from '../../src/io/testing.js';
import { exitCodeFor, main, reportError } from '../../src/main.js';

async function run(args: string[]) {
  const deps = createTestDeps();
  const code = await main(['node', 'deploy-kit', ...args], deps);
  return { code, out: deps.out.stdoutText(), err: deps.out.stderrText() };
}

test('--help on the root and on every command exits 0 and prints usage on stdout', async () => {
  for (const args of [['--help'], ['init', '--help'], ['render', '--help'], ['check', '--help'], ['cert', '--help'], ['cert', 'self-signed', '--help'], ['cert', 'import', '--help']]) {
    const r = await run(args);
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.out, /^Usage: deploy-kit/m, args.join(' '));
    assert.equal(r.err, '');
  }
});

test('--version exits 0', async () => {
  const r = await run(['--version']);
  assert.equal(r.code, 0);
  assert.match(r.out, /^\d+\.\d+\.\d+/);
});

test('usage errors exit 2 with exactly one line on stderr and a hint', async () => {
  for (const args of [['--bogus'], ['nosuch'], ['cert', 'self-signed', '--days', 'x'], ['cert', 'import', '--cert', 'a']]) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    const lines = r.err.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.err);
    assert.match(lines[0] ?? '', /^deploy-kit: error: .+ \(hint: .+\)$/);
  }
});

test('no command shows help and is a usage error', async () => {
  const r = await run([]);
  assert.equal(r.code, 2);
});

test('exit codes: DeployKitError by table, unknown errors 1 reported as internal', () => {
  assert.equal(exitCodeFor(new DeployKitError('DK_ERR_CANCELLED', 'x')), 3);
  assert.equal(exitCodeFor(new DeployKitError('DK_ERR_EXTERNAL_TOOL', 'x')), 4);
  assert.equal(exitCodeFor(new TypeError('boom')), 1);
  const out = createCapturedOutput();
  assert.equal(reportError(new TypeError('boom'), out), 1);
  assert.match(out.stderrText(), /^deploy-kit: error: internal error: boom \(hint: .*report/);
});

test('details print one line each after the error line; colour only when allowed', () => {
  const plain = createCapturedOutput();
  reportError(new DeployKitError('DK_ERR_SPEC_INVALID', 'spec has 2 problems', { hint: 'edit it', details: ['a: x', 'b: y'] }), plain);
  assert.equal(plain.stderrText(), 'deploy-kit: error: spec has 2 problems (hint: edit it)\n  - a: x\n  - b: y\n');
  const tty = createCapturedOutput({ isTTY: true, color: true });
  reportError(new DeployKitError('DK_ERR_IO', 'x'), tty);
  assert.match(tty.stderrText(), /\u001b\[31merror/);
});
