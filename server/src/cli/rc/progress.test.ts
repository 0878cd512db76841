import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress, progressLine } from './progress.js';

function sink(isTTY: boolean): { isTTY: boolean; text: string; write(s: string | Uint8Array): boolean } {
  return { isTTY, text: '', write(s) { this.text += String(s); return true; } };
}

test('the line shows percent, bar, bytes, rate and ETA within 80 columns', () => {
  const line = progressLine(150 * 1024 * 1024, 300 * 1024 * 1024, 3000);
  assert.match(line, /^ 50\.0% \[=+> +\] 150\.0 MiB \/ 300\.0 MiB {2}50\.0 MiB\/s {2}ETA 3s$/);
  assert.ok(line.length < 80);
  assert.match(progressLine(10, 10, 1000), /100\.0% \[=+\].*ETA 0s/);
  assert.match(progressLine(0, 0, 0), /100\.0%/);
});

test('on a TTY it redraws with \\r (at most every 100 ms) and ends with 100% and a newline', () => {
  const out = sink(true);
  let now = 0;
  const p = createProgress(out, 1000, true, () => now);
  p.add(100);
  now = 50; p.add(100); // too soon: no redraw
  now = 200; p.add(300);
  p.done();
  const frames = out.text.split('\r').filter(Boolean);
  assert.equal(frames.length, 3, JSON.stringify(out.text));
  assert.match(frames[0] ?? '', /^ {2}0\.0%/);
  assert.match(frames[1] ?? '', /^ 50\.0%/);
  assert.match(frames[2] ?? '', /^ 50\.0%.*\n$/);
});

test('nothing is written when the stream is not a TTY or the bar is disabled', () => {
  for (const [tty, enabled] of [[false, true], [true, false]] as const) {
    const out = sink(tty);
    const p = createProgress(out, 1000, enabled);
    p.add(1000);
    p.done();
    assert.equal(out.text, '');
  }
});
