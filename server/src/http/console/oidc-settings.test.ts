import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consoleSettingsFromEnv } from './oidc-settings.js';

test('console settings from the environment, with clear errors naming the variable', () => {
  assert.deepEqual(consoleSettingsFromEnv({}), {});
  const s = consoleSettingsFromEnv({
    SVC_IDENTITY_OPENID_CONFIG_URL: 'http://127.0.0.1:5556/.well-known/openid-configuration', SVC_IDENTITY_OPENID_CLIENT_ID: 'svc',
    SVC_CONSOLE_SESSION_TTL: '90m', SVC_CONSOLE_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1', SVC_SERVER_URL: 'https://s3.example.net/',
  });
  assert.equal(s.oidc?.claimName, 'policy');
  assert.equal(s.oidc?.allowInsecure, true);
  assert.equal(s.sessionTtlSeconds, 5400);
  assert.deepEqual(s.trustedProxies, ['10.0.0.0/8', '192.168.1.1']);
  assert.equal(s.serverUrl, 'https://s3.example.net');
  assert.throws(() => consoleSettingsFromEnv({ SVC_IDENTITY_OPENID_CONFIG_URL: 'https://idp.example' }), /SVC_IDENTITY_OPENID_CLIENT_ID/);
  assert.throws(() => consoleSettingsFromEnv({ SVC_IDENTITY_OPENID_CONFIG_URL: 'http://idp.example', SVC_IDENTITY_OPENID_CLIENT_ID: 'x' }), /https/);
  assert.throws(() => consoleSettingsFromEnv({ SVC_CONSOLE_SESSION_TTL: 'soon' }), /SVC_CONSOLE_SESSION_TTL/);
  assert.throws(() => consoleSettingsFromEnv({ SVC_SERVER_URL: 'ftp://x' }), /SVC_SERVER_URL/);
});
