/** ANSI colours, applied only when enabled (stdout is a TTY and NO_COLOR is unset, see io.ts `useColor`). */

/** Colour functions; identity functions when colours are off. */
export interface Palette {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

/** The palette for `enabled`. */
export function palette(enabled: boolean): Palette {
  if (!enabled) {
    const id = (s: string) => s;
    return { green: id, red: id, yellow: id, bold: id, dim: id };
  }
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}

/** Colours a state word: online/ok green, degraded/healing yellow, anything else red. */
export function stateColor(p: Palette, state: string): string {
  if (state === 'online' || state === 'ok') return p.green(state);
  if (state === 'degraded' || state === 'healing' || state === 'unformatted') return p.yellow(state);
  return p.red(state);
}
