/**
 * Golden files: rendering each examples/<name>/deploy-kit.yaml reproduces the committed files byte for
 * byte. `UPDATE_GOLDEN=1 node scripts/run-tests.mjs deploy-kit/test/examples` rewrites them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { load } from 'js-yaml';
import { parseSpec, SPEC_FILE_NAME } from '../../src/config/index.js';
import { planRender } from '../../src/render/index.js';
import { validateHaproxyText, validateTraefik } from '../../src/validate/index.js';
import { loadTemplateSet, loadTraefikSchemas, REPO_ROOT } from '../render/fixtures.js';
import { haproxyCheck, unexpectedWarnings } from '../render/haproxy-check.js';

const EXAMPLES = join(REPO_ROOT, 'examples');
const EXPECTED = ['cluster-haproxy-acme', 'cluster-traefik-acme', 'single-haproxy-pem'];
const update = process.env['UPDATE_GOLDEN'] === '1';
const templates = loadTemplateSet();

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

test('the three examples exist', () => {
  assert.deepEqual(readdirSync(EXAMPLES).filter((n) => statSync(join(EXAMPLES, n)).isDirectory()).sort(), EXPECTED);
});

for (const name of EXPECTED) {
  test(`example ${name}: rendering its spec reproduces the committed files`, () => {
    const dir = join(EXAMPLES, name);
    const { spec, problems } = parseSpec(load(readFileSync(join(dir, SPEC_FILE_NAME), 'utf8')));
    assert.deepEqual(problems, []);
    assert.ok(spec);
    const plan = planRender(spec, templates);
    if (update) {
      for (const f of plan.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
      }
    }
    for (const f of plan.files) {
      const path = join(dir, f.path);
      assert.ok(existsSync(path), `${name}/${f.path} is not committed (run with UPDATE_GOLDEN=1)`);
      assert.equal(readFileSync(path, 'utf8'), f.content, `${name}/${f.path} differs from the rendering (run with UPDATE_GOLDEN=1 if intended)`);
    }
    const committed = filesUnder(dir).filter((p) => p !== SPEC_FILE_NAME && p !== 'README.md');
    assert.deepEqual(committed, plan.files.map((f) => f.path).sort(), 'no stale or extra rendered files');
    assert.ok(!committed.some((p) => /\.(pem|key|crt)$|(^|\/)\.env$|acme\.json$/.test(p)), 'no certificates or secrets committed');
  });

  test(`example ${name}: its proxy config passes the proxy checks`, () => {
    const dir = join(EXAMPLES, name);
    if (existsSync(join(dir, 'haproxy/haproxy.cfg'))) {
      const cfg = readFileSync(join(dir, 'haproxy/haproxy.cfg'), 'utf8');
      const res = haproxyCheck(cfg);
      assert.equal(res.status, 0, res.output);
      assert.deepEqual(unexpectedWarnings(res.output), []);
      assert.deepEqual(validateHaproxyText(cfg), []);
    } else {
      const st = load(readFileSync(join(dir, 'traefik/traefik.yml'), 'utf8'));
      const dy = load(readFileSync(join(dir, 'traefik/dynamic.yml'), 'utf8'));
      assert.deepEqual(validateTraefik(st, dy, loadTraefikSchemas()), []);
    }
  });
}
