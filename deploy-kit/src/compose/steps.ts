/** A plain progress printer for long commands (`up`): one line per step, a mark when it ends; NO_COLOR honoured. */
import type { Output } from '../io/index.js';

/** Prints steps as they start and end. */
export interface StepPrinter {
  /** Runs `fn` as a step titled `title`; prints ok/failed with the elapsed seconds and rethrows failures. */
  step<T>(title: string, fn: () => Promise<T>): Promise<T>;
  /** An informational line inside the current step. */
  note(text: string): void;
}

function paint(out: Output, code: number, text: string): string {
  return out.color ? `\u001b[${code}m${text}\u001b[39m` : text;
}

/** A step printer on stderr (stdout stays for the command's result). */
export function createStepPrinter(out: Output, now: () => number = Date.now): StepPrinter {
  return {
    async step(title, fn) {
      out.stderr(`${paint(out, 36, '→')} ${title}\n`);
      const t0 = now();
      try {
        const v = await fn();
        out.stderr(`  ${paint(out, 32, 'ok')} ${title} (${((now() - t0) / 1000).toFixed(1)} s)\n`);
        return v;
      } catch (err) {
        out.stderr(`  ${paint(out, 31, 'failed')} ${title} (${((now() - t0) / 1000).toFixed(1)} s)\n`);
        throw err;
      }
    },
    note(text) {
      out.stderr(`  ${text}\n`);
    },
  };
}
