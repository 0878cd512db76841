import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDir, getAlias, loadConfig, saveConfig } from './config.js';
import { EXIT, RcError } from './errors.js';

test('RC_CONFIG_DIR overrides $HOME/.config/rc', () => {
  assert.equal(configDir({ HOME: '/home/u' }), '/home/u/.config/rc');
  assert.equal(configDir({ HOME: '/home/u', RC_CONFIG_DIR: '/etc/rc' }), '/etc/rc');
});

test('save writes mode 600 in a mode 700 directory (tightening an existing one); load round-trips', () => {
  const base = mkdtempSync(join(tmpdir(), 'rc-config-'));
  try {
    const env = { RC_CONFIG_DIR: join(base, 'rc') };
    mkdirSync(env.RC_CONFIG_DIR, { mode: 0o755 });
    assert.deepEqual(loadConfig(env), { version: 1, aliases: {} });
    const cfg = { version: 1 as const, aliases: { a: { url: 'http://h:1', accessKey: 'k', secretKey: 's', region: 'r' } } };
    saveConfig(env, cfg);
    assert.equal(statSync(join(env.RC_CONFIG_DIR, 'config.json')).mode & 0o777, 0o600);
    assert.equal(statSync(env.RC_CONFIG_DIR).mode & 0o777, 0o700);
    assert.deepEqual(loadConfig(env), cfg);
  } finally {
    rmSync(base, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('a malformed file or alias is exit 3 naming the file; an unknown alias is exit 3 with the fix', () => {
  const base = mkdtempSync(join(tmpdir(), 'rc-config-'));
  try {
    const env = { RC_CONFIG_DIR: base };
    for (const text of ['{', '[]', '{"aliases": {"a": {"url": 1}}}']) {
      writeFileSync(join(base, 'config.json'), text);
      assert.throws(() => loadConfig(env), (e: unknown) => e instanceof RcError && e.exitCode === EXIT.config && e.message.includes('config.json'));
    }
    assert.throws(() => getAlias({ version: 1, aliases: {} }, 'x'), (e: unknown) => e instanceof RcError && e.exitCode === EXIT.config && /rc alias set x/.test(e.hint ?? ''));
    assert.throws(() => getAlias({ version: 1, aliases: {} }, 'constructor'), RcError);
  } finally {
    rmSync(base, { recursive: true, force: true, maxRetries: 5 });
  }
});
