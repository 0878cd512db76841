import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTraefikRule } from './traefik-rule.js';

test('valid rules parse into their matchers', () => {
  const r = parseTraefikRule('(Host(`a.example.com`) || Host("b.example.com")) && !PathPrefix(`/x`)');
  assert.ok(r.ok);
  assert.deepEqual(r.ok && r.matchers.map((m) => [m.name, m.args, m.negated]), [
    ['Host', ['a.example.com'], false],
    ['Host', ['b.example.com'], false],
    ['PathPrefix', ['/x'], true],
  ]);
  assert.ok(parseTraefikRule('Header(`X-A`, `1`) && Method(`GET`)').ok);
});

test('broken rules are reported with a reason', () => {
  const cases: [string, RegExp][] = [
    ['Host(`a`) && PathPrefx(`/x`)', /unknown matcher "PathPrefx"/],
    ['Host(`a`', /not closed/],
    ['(Host(`a`)', /missing "\)"/],
    ['Host(`a`))', /unbalanced/],
    ['Host(`a`) &&', /ends where a matcher/],
    ['Host(`a)', /unterminated backtick/],
    ['Host(a)', /non-string argument/],
    ['Header(`X`)', /takes 2 argument/],
    ['', /empty/],
    ['Host(`a`) & Path(`/`)', /unexpected "&"/],
  ];
  for (const [rule, re] of cases) {
    const r = parseTraefikRule(rule);
    assert.equal(r.ok, false, rule);
    assert.match(r.ok ? '' : r.error, re, rule);
  }
});
