import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createContext } from '../context.js';
import { EXIT, RcError } from '../errors.js';
import { describe, planCopy } from './cp-plan.js';

function setup(): { dir: string; ctx: ReturnType<typeof createContext> } {
  const dir = mkdtempSync(join(tmpdir(), 'rc-plan-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, aliases: { x: { url: 'http://127.0.0.1:1', accessKey: 'k', secretKey: 's' } } }));
  mkdirSync(join(dir, 'tree', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'tree', 'a.txt'), 'a');
  writeFileSync(join(dir, 'tree', 'sub', 'b.txt'), 'bb');
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: { RC_CONFIG_DIR: dir } };
  return { dir, ctx: createContext(io) };
}

test('local uploads are named like rsync: "dir" copies the folder, "dir/" its contents, "/" targets are folders', async () => {
  const { dir, ctx } = setup();
  try {
    const plan = async (sources: string[], target: string, recursive: boolean) =>
      (await planCopy(ctx, { sources: sources.map((s) => join(dir, s)).map((s, i) => (sources[i]?.endsWith('/') ? `${s}/` : s)), target, recursive }))
        .map((t) => [describe(t.to), t.size]);
    assert.deepEqual(await plan(['tree'], 'x/b/', true), [['x/b/tree/a.txt', 1], ['x/b/tree/sub/b.txt', 2]]);
    assert.deepEqual(await plan(['tree/'], 'x/b/in', true), [['x/b/in/a.txt', 1], ['x/b/in/sub/b.txt', 2]]);
    assert.deepEqual(await plan(['tree/a.txt'], 'x/b', false), [['x/b/a.txt', 1]]);
    assert.deepEqual(await plan(['tree/a.txt'], 'x/b/renamed', false), [['x/b/renamed', 1]]);
    assert.deepEqual(await plan(['tree/a.txt', 'tree/sub/b.txt'], 'x/b/two', false), [['x/b/two/a.txt', 1], ['x/b/two/b.txt', 2]]);
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('refusals happen before any transfer: directories without -r, local to local, missing files, no bucket', async () => {
  const { dir, ctx } = setup();
  try {
    const code = async (sources: string[], target: string, recursive = false) =>
      planCopy(ctx, { sources, target, recursive }).then(() => 0, (e: unknown) => (e instanceof RcError ? e.exitCode : -1));
    assert.equal(await code([join(dir, 'tree')], 'x/b/'), EXIT.usage);
    assert.equal(await code([join(dir, 'tree', 'a.txt')], join(dir, 'copy')), EXIT.usage);
    assert.equal(await code([join(dir, 'missing')], 'x/b/'), EXIT.notFound);
    assert.equal(await code([join(dir, 'tree', 'a.txt')], 'x'), EXIT.usage);
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});
