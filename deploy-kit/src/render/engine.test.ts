import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRenderer, partialsOf } from './engine.js';

test('strict mode: a missing view-model field throws instead of rendering empty', () => {
  const render = createRenderer({});
  assert.throws(() => render('a {{missing}} b', {}), /"missing" not defined/);
  assert.equal(render('{{#if x}}yes{{/if}}', { x: null }), '');
});

test('no HTML escaping; json helper quotes for YAML', () => {
  const render = createRenderer({});
  assert.equal(render('{{v}} {{json v}}', { v: `a<b>&'"` }), `a<b>&'" "a<b>&'\\""`);
  assert.equal(render('{{json list}}', { list: ['x', 'y'] }), '["x","y"]');
});

test('partials come from _-prefixed templates, named by folder', () => {
  const partials = partialsOf({ 'traefik/_router-tls.hbs': 'TLS {{n}}', 'traefik/dynamic.yml.hbs': 'x' });
  assert.deepEqual(Object.keys(partials), ['traefik/router-tls']);
  assert.equal(createRenderer(partials)('[{{> traefik/router-tls}}]', { n: 1 }), '[TLS 1]');
});

test('environments are isolated: a partial registered for one renderer is unknown to another', () => {
  createRenderer({ p: 'x' });
  assert.throws(() => createRenderer({})('{{> p}}', {}), /partial p could not be found/);
});
