/**
 * A one-line transfer progress bar (percent, bar, bytes, rate, ETA) redrawn with `\r` on stderr — only when
 * stderr is a terminal, so pipes and log files never receive control characters.
 */
import type { OutStream } from './io.js';
import { humanBytes } from './format.js';

/** Receives transferred byte counts. */
export interface Progress {
  /** Adds `n` bytes to the transferred total. */
  add(n: number): void;
  /** Draws the final line and ends it with a newline (no-op when disabled). */
  done(): void;
}

const BAR = 20;
const REDRAW_MS = 100;

function eta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

/** The text of one redraw (without the leading `\r`); exported for unit tests. */
export function progressLine(done: number, total: number, elapsedMs: number): string {
  const frac = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(frac * BAR);
  const bar = `${'='.repeat(Math.max(0, filled - 1))}${filled > 0 ? (filled === BAR ? '=' : '>') : ''}${' '.repeat(BAR - filled)}`;
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const remaining = rate > 0 ? (total - done) / rate : Number.NaN;
  return `${(frac * 100).toFixed(1).padStart(5)}% [${bar}] ${humanBytes(done)} / ${humanBytes(total)}  ${humanBytes(rate)}/s  ETA ${frac >= 1 ? '0s' : eta(remaining)}`;
}

const DISABLED: Progress = { add() {}, done() {} };

/** A progress bar for `total` bytes on `stream`; disabled (silent) unless `enabled` and the stream is a TTY. */
export function createProgress(stream: OutStream, total: number, enabled: boolean, now: () => number = Date.now): Progress {
  if (!enabled || stream.isTTY !== true) return DISABLED;
  const start = now();
  let transferred = 0;
  let lastDraw = 0;
  let lastLen = 0;
  let finished = false;
  const draw = () => {
    const line = progressLine(transferred, total, now() - start);
    stream.write(`\r${line}${' '.repeat(Math.max(0, lastLen - line.length))}`);
    lastLen = line.length;
    lastDraw = now();
  };
  draw();
  return {
    add(n: number) {
      transferred += n;
      if (!finished && now() - lastDraw >= REDRAW_MS) draw();
    },
    done() {
      if (finished) return;
      finished = true;
      draw();
      stream.write('\n');
    },
  };
}
