/** What `check` reports: one finding per problem, each with a fix hint. */
import type { Output } from '../../io/index.js';
import { paint } from '../shared.js';

/** The areas `check` looks at, in report order. */
export const CHECK_AREAS = ['spec', 'dns', 'cert', 'modes', 'compose', 'haproxy', 'traefik', 'render', 'ports'] as const;

/** One of {@link CHECK_AREAS}. */
export type CheckArea = (typeof CHECK_AREAS)[number];

/** One result of `check`. */
export interface CheckFinding {
  readonly level: 'error' | 'warning';
  readonly area: CheckArea;
  readonly message: string;
  readonly hint: string;
}

/** Shorthand constructors. */
export const finding = {
  error: (area: CheckArea, message: string, hint: string): CheckFinding => ({ level: 'error', area, message, hint }),
  warning: (area: CheckArea, message: string, hint: string): CheckFinding => ({ level: 'warning', area, message, hint }),
} as const;

/** One line per finding: `error   cert: certificate does not cover x (fix: …)`. */
export function findingLine(f: CheckFinding, out: Pick<Output, 'color'>): string {
  const label = f.level === 'error' ? paint(out, 'red', 'error  ') : paint(out, 'yellow', 'warning');
  return `${label} ${f.area}: ${f.message} (fix: ${f.hint})`;
}
