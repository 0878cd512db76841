/**
 * Console settings read from the environment (SPEC §1 SVC_CONSOLE_*, issue 6 SVC_IDENTITY_OPENID_*). Pure: the
 * composition root passes `process.env`; a bad value is a clear Error naming the variable.
 */

/** OpenID Connect sign-in settings. */
export interface OidcSettings {
  /** SVC_IDENTITY_OPENID_CONFIG_URL: the provider's discovery document (…/.well-known/openid-configuration) or issuer. */
  configUrl: string;
  clientId: string;
  clientSecret?: string;
  /** SVC_IDENTITY_OPENID_CLAIM_NAME: the claim holding the policy names (default `policy`). */
  claimName: string;
  /** SVC_IDENTITY_OPENID_REDIRECT_URI: the callback URL registered at the provider; derived from the request when unset. */
  redirectUri?: string;
  /** SVC_IDENTITY_OPENID_SCOPES (default `openid profile email`). */
  scopes: string;
  /** Plain-HTTP providers are refused unless on loopback (tests, local development). */
  allowInsecure: boolean;
}

/** Everything the console reads from the environment. */
export interface ConsoleEnvSettings {
  trustedProxies?: string[];
  sessionTtlSeconds?: number;
  browserRedirectUrl?: string;
  serverUrl?: string;
  oidc?: OidcSettings;
}

function url(name: string, value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return value.replace(/\/+$/, '');
  } catch {
    throw new Error(`${name}: "${value}" is not an http(s) URL`);
  }
}

function isLoopback(u: string): boolean {
  const host = new URL(u).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** Reads the console settings; throws an Error naming the variable on a bad value. */
export function consoleSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ConsoleEnvSettings {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const out: ConsoleEnvSettings = {};
  const proxies = get('SVC_CONSOLE_TRUSTED_PROXIES');
  if (proxies !== undefined) out.trustedProxies = proxies.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const ttl = get('SVC_CONSOLE_SESSION_TTL');
  if (ttl !== undefined) {
    const m = /^(\d+)([smhd]?)$/.exec(ttl);
    if (m === null || Number(m[1]) === 0) throw new Error(`SVC_CONSOLE_SESSION_TTL: "${ttl}" is not a duration such as 3600, 90m, 12h or 7d`);
    out.sessionTtlSeconds = Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as const)[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  }
  const browser = get('SVC_BROWSER_REDIRECT_URL');
  if (browser !== undefined) out.browserRedirectUrl = url('SVC_BROWSER_REDIRECT_URL', browser);
  const server = get('SVC_SERVER_URL');
  if (server !== undefined) out.serverUrl = url('SVC_SERVER_URL', server);
  const configUrl = get('SVC_IDENTITY_OPENID_CONFIG_URL');
  if (configUrl !== undefined) {
    const clientId = get('SVC_IDENTITY_OPENID_CLIENT_ID');
    if (clientId === undefined) throw new Error('SVC_IDENTITY_OPENID_CLIENT_ID must be set with SVC_IDENTITY_OPENID_CONFIG_URL');
    const checked = url('SVC_IDENTITY_OPENID_CONFIG_URL', configUrl);
    const redirect = get('SVC_IDENTITY_OPENID_REDIRECT_URI');
    const secret = get('SVC_IDENTITY_OPENID_CLIENT_SECRET');
    out.oidc = {
      configUrl: checked, clientId, claimName: get('SVC_IDENTITY_OPENID_CLAIM_NAME') ?? 'policy',
      scopes: get('SVC_IDENTITY_OPENID_SCOPES') ?? 'openid profile email',
      allowInsecure: new URL(checked).protocol === 'http:' && isLoopback(checked),
      ...(secret !== undefined ? { clientSecret: secret } : {}),
      ...(redirect !== undefined ? { redirectUri: url('SVC_IDENTITY_OPENID_REDIRECT_URI', redirect) } : {}),
    };
    if (new URL(checked).protocol === 'http:' && !out.oidc.allowInsecure) {
      throw new Error('SVC_IDENTITY_OPENID_CONFIG_URL: a provider must be reached over https (plain http only on loopback)');
    }
  }
  return out;
}
