import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { unifiedDiff } from './line-diff.js';

const L = { oldLabel: 'a/f', newLabel: 'b/f' };

test('equal texts give no diff', () => {
  assert.equal(unifiedDiff('a\nb\n', 'a\nb\n', L), '');
});

test('one changed line in the middle gives one hunk with 3 lines of context', () => {
  const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const neu = old.replace('line 10\n', 'line ten\n');
  assert.equal(unifiedDiff(old, neu, L), [
    '--- a/f', '+++ b/f', '@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13', '',
  ].join('\n'));
});

test('a new file is all additions from line 0', () => {
  assert.equal(unifiedDiff('', 'x\ny\n', { oldLabel: '/dev/null', newLabel: 'b/f' }), '--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n');
});

test('hunks agree with GNU diff -u on a multi-change file', (t) => {
  const old = Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n') + '\n';
  const neu = old.replace('l2\n', '').replace('l20\n', 'l20\nnew\n').replace('l39\n', 'end\n');
  const dir = mkdtempSync(join(tmpdir(), 'dk-diff-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'a'), old);
  writeFileSync(join(dir, 'b'), neu);
  const gnu = spawnSync('diff', ['-u', '--label', 'a/f', '--label', 'b/f', 'a', 'b'], { cwd: dir, encoding: 'utf8' });
  assert.equal(gnu.error, undefined, 'diff(1) from diffutils (Debian essential) must run');
  assert.equal(unifiedDiff(old, neu, L), gnu.stdout);
});
