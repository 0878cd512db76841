/**
 * Syntax check of Traefik v3 router rules: matchers joined by `&&` / `||`, negated with `!`, grouped
 * with parentheses; arguments are backtick- or double-quoted strings. The JSON Schemas treat a rule
 * as any string (DOCKER.md §6), so a typo would otherwise only show up when Traefik loads the file.
 */

/** v3 HTTP matchers and how many arguments each takes. */
export const TRAEFIK_MATCHERS: Readonly<Record<string, readonly [number, number]>> = {
  Host: [1, 1],
  HostRegexp: [1, 1],
  Path: [1, 1],
  PathPrefix: [1, 1],
  PathRegexp: [1, 1],
  Method: [1, 1],
  ClientIP: [1, 1],
  Header: [2, 2],
  HeaderRegexp: [2, 2],
  Query: [1, 2],
  QueryRegexp: [2, 2],
};

/** A matcher call found in a rule. */
export interface RuleMatcher {
  name: string;
  args: string[];
  negated: boolean;
}

/** Result of {@link parseTraefikRule}: either matchers or an error message. */
export type RuleParseResult = { ok: true; matchers: RuleMatcher[] } | { ok: false; error: string };

type Token = { t: 'name' | 'str' | '(' | ')' | ',' | '&&' | '||' | '!'; v: string; at: number };

function tokenize(rule: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  while (i < rule.length) {
    const c = rule[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(' || c === ')' || c === ',' || c === '!') { out.push({ t: c, v: c, at: i }); i++; continue; }
    if (rule.startsWith('&&', i) || rule.startsWith('||', i)) { out.push({ t: rule.slice(i, i + 2) as '&&' | '||', v: rule.slice(i, i + 2), at: i }); i += 2; continue; }
    if (c === '`' || c === '"') {
      const end = rule.indexOf(c, i + 1);
      if (end < 0) return `unterminated ${c === '`' ? 'backtick' : 'double-quoted'} string at ${i}`;
      out.push({ t: 'str', v: rule.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const m = /^[A-Za-z][A-Za-z0-9]*/.exec(rule.slice(i));
    if (!m) return `unexpected "${c}" at ${i}`;
    out.push({ t: 'name', v: m[0], at: i });
    i += m[0].length;
  }
  return out;
}

/** Parses a rule; reports unbalanced parentheses, unknown matchers, wrong argument counts. */
export function parseTraefikRule(rule: string): RuleParseResult {
  const tokens = tokenize(rule);
  if (typeof tokens === 'string') return { ok: false, error: tokens };
  if (tokens.length === 0) return { ok: false, error: 'the rule is empty' };
  const matchers: RuleMatcher[] = [];
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const fail = (msg: string): never => { throw new Error(msg); };

  const primary = (negated: boolean): void => {
    const tok = peek();
    if (!tok) fail('the rule ends where a matcher was expected');
    if (tok!.t === '!') { pos++; primary(!negated); return; }
    if (tok!.t === '(') {
      pos++;
      expression(negated);
      if (peek()?.t !== ')') fail(`missing ")" for "(" at ${tok!.at}`);
      pos++;
      return;
    }
    if (tok!.t !== 'name') fail(`expected a matcher at ${tok!.at}, got "${tok!.v}"`);
    const arity = TRAEFIK_MATCHERS[tok!.v];
    if (!arity) fail(`unknown matcher "${tok!.v}" (known: ${Object.keys(TRAEFIK_MATCHERS).join(', ')})`);
    pos++;
    if (peek()?.t !== '(') fail(`"${tok!.v}" must be followed by "("`);
    pos++;
    const args: string[] = [];
    while (peek()?.t === 'str') {
      args.push(peek()!.v);
      pos++;
      if (peek()?.t === ',') pos++;
      else break;
    }
    if (peek()?.t !== ')') fail(`"${tok!.v}(" is not closed or has a non-string argument`);
    pos++;
    if (args.length < arity![0] || args.length > arity![1]) fail(`"${tok!.v}" takes ${arity![0] === arity![1] ? arity![0] : `${arity![0]}-${arity![1]}`} argument(s), got ${args.length}`);
    matchers.push({ name: tok!.v, args, negated });
  };
  const expression = (negated: boolean): void => {
    primary(negated);
    while (peek()?.t === '&&' || peek()?.t === '||') {
      pos++;
      primary(negated);
    }
  };
  try {
    expression(false);
    if (pos < tokens.length) fail(`unexpected "${tokens[pos]!.v}" at ${tokens[pos]!.at}${tokens[pos]!.t === ')' ? ' (unbalanced parentheses)' : ''}`);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return { ok: true, matchers };
}
