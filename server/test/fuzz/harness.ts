/**
 * Property-based fuzzing of the parsers that see untrusted bytes (issue 10): fast-check generates inputs (with
 * shrinking to a minimal failing one), every parser must either return or throw its own typed error — never a
 * TypeError/RangeError, never a hang (each run is synchronous and the test has a deadline). FUZZ_RUNS (default
 * 100,000) sets the runs per parser; the regression corpus (corpus/<name>.json: inputs that once broke a parser)
 * is replayed first on every run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

/** Runs per parser (CI: the 100,000). */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 100_000);

/** Inputs kept from earlier failures, by corpus name. */
export function corpus(name: string): string[] {
  try {
    return JSON.parse(readFileSync(fileURLToPath(new URL(`./corpus/${name}.json`, import.meta.url)), 'utf8')) as string[];
  } catch {
    return [];
  }
}

/** Calls `parse(input)`: returns normally, or throws an error `expected` accepts; anything else fails with the input. */
export function survives<T>(parse: (input: T) => unknown, expected: (err: unknown) => boolean, input: T): void {
  try {
    parse(input);
  } catch (err) {
    if (!expected(err)) {
      assert.fail(`unexpected ${(err as Error)?.constructor?.name ?? typeof err}: ${(err as Error)?.message} for input ${JSON.stringify(input)?.slice(0, 300)}`);
    }
  }
}

/** Replays the corpus, then `RUNS` generated inputs. Returns the number of inputs tried. */
export function fuzz<T>(name: string, arb: fc.Arbitrary<T>, check: (input: T) => void, fromCorpus?: (s: string) => T): number {
  let n = 0;
  if (fromCorpus !== undefined) for (const c of corpus(name)) { check(fromCorpus(c)); n++; }
  fc.assert(fc.property(arb, (input) => { check(input); n++; }), { numRuns: RUNS });
  return n;
}

/** Strings biased toward the characters parsers split on, plus arbitrary unicode. */
export function tokenish(alphabet: string, maxLength = 200): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: fc.constantFrom(...alphabet.split('')), maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ maxLength }),
  );
}

/** Splices random edits (insert/delete/replace) into a valid sample: inputs close to valid ones reach deeper code. */
export function mutated(samples: readonly string[], alphabet: string): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...samples), fc.array(fc.tuple(fc.nat(), fc.nat(8), tokenish(alphabet, 12)), { maxLength: 4 }))
    .map(([s, edits]) => {
      let out = s;
      for (const [at, del, ins] of edits) {
        const i = out.length === 0 ? 0 : at % (out.length + 1);
        out = out.slice(0, i) + ins + out.slice(i + del);
      }
      return out;
    });
}

export { fc };
