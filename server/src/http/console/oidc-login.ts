/**
 * OpenID Connect sign-in (issue 6): authorization code flow with PKCE (RFC 7636), state and nonce, via
 * openid-client. The login state (code verifier, state, nonce, expiry) is sealed with AES-GCM under a key derived
 * from the root credentials and kept in a short-lived HttpOnly cookie, so the callback verifies on whichever node
 * it lands (REFERENCE.md §3.2 point 3; SPEC §4 rule 11's affinity is then belt and braces). The policy claim
 * (SVC_IDENTITY_OPENID_CLAIM_NAME) names the policies the session is allowed.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Configuration } from 'openid-client';
import { COOKIE_PATH, type ConsoleContext } from './console-context.js';
import { ConsoleError, toConsoleError } from './console-error.js';
import { seal, unseal } from './console-keys.js';
import type { OidcSettings } from './oidc-settings.js';
import { browserOrigin, cookie, parseCookies } from './request-origin.js';

/** Options of {@link oidcRoutes}. */
export interface OidcRoutesOptions {
  ctx: ConsoleContext;
  settings: OidcSettings;
}

/** Cookie of an in-progress login. */
export const LOGIN_STATE_COOKIE = 'svc_oidc_login';
/** How long a login may take at the provider. */
export const LOGIN_STATE_SECONDS = 600;

export const LOGIN_PATH = `${COOKIE_PATH}/oidc/login`;
export const CALLBACK_PATH = `${COOKIE_PATH}/oidc/callback`;

interface LoginState {
  verifier: string;
  state: string;
  nonce: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A plain page for a failed login: no script, the reason, and a way back. */
function failurePage(reply: FastifyReply, error: ConsoleError): FastifyReply {
  return reply.code(error.status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in failed · svc console</title></head>
<body><main><h1>Sign-in failed</h1><p id="login-error" data-code="${error.code}">${escapeHtml(error.message)}</p>
<p><a href="${COOKIE_PATH}/">Back to the sign-in page</a></p></main></body></html>
`);
}

/** Policy names from the claim: a list, or a comma-separated string (MinIO accepts both). */
export function policiesFromClaim(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return list.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter((v) => v !== '');
}

/** See the module comment. */
export const oidcRoutes: FastifyPluginAsync<OidcRoutesOptions> = async (app, { ctx, settings }) => {
  const client = await import('openid-client');
  let config: Promise<Configuration> | undefined;
  const configuration = (): Promise<Configuration> => {
    if (config === undefined) {
      const issuer = new URL(settings.configUrl.replace(/\/\.well-known\/openid-configuration$/, ''));
      config = client.discovery(issuer, settings.clientId, settings.clientSecret, undefined,
        settings.allowInsecure ? { execute: [client.allowInsecureRequests] } : undefined);
      // A failed discovery is retried on the next login rather than remembered.
      config.catch(() => { config = undefined; });
    }
    return config.catch((err: unknown) => {
      throw new ConsoleError('OidcFailed', `The OpenID provider at ${settings.configUrl} cannot be reached or is misconfigured: ${(err as Error).message}`, { cause: err });
    });
  };
  const redirectUri = (request: FastifyRequest): string => {
    if (settings.redirectUri !== undefined) return settings.redirectUri;
    const base = ctx.services.browserRedirectUrl;
    if (base !== undefined) return `${new URL(base).origin}${CALLBACK_PATH}`;
    const origin = browserOrigin(request, ctx.trusted);
    return `${origin.secure ? 'https' : 'http'}://${origin.host}${CALLBACK_PATH}`;
  };

  app.get(LOGIN_PATH, async (request, reply) => {
    try {
      const cfg = await configuration();
      const state: LoginState = {
        verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce(),
        exp: ctx.now().getTime() + LOGIN_STATE_SECONDS * 1000,
      };
      const url = client.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri(request), scope: settings.scopes, response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(state.verifier), code_challenge_method: 'S256',
        state: state.state, nonce: state.nonce,
      });
      reply.header('set-cookie', cookie(LOGIN_STATE_COOKIE, seal(ctx.keys.seal, JSON.stringify(state)), {
        path: `${COOKIE_PATH}/oidc`, maxAge: LOGIN_STATE_SECONDS, secure: ctx.secure(request),
      }));
      return reply.redirect(url.href, 302);
    } catch (err) {
      const { error, internal } = toConsoleError(err);
      if (internal || error.code === 'OidcFailed') request.log.error({ err }, 'OpenID sign-in could not start');
      return failurePage(reply, error);
    }
  });

  app.get(CALLBACK_PATH, async (request, reply) => {
    const clear = cookie(LOGIN_STATE_COOKIE, '', { path: `${COOKIE_PATH}/oidc`, maxAge: 0, secure: ctx.secure(request) });
    try {
      const q = request.query as Record<string, unknown>;
      if (typeof q.error === 'string') {
        const why = typeof q.error_description === 'string' ? q.error_description : q.error;
        throw new ConsoleError('OidcFailed', `The OpenID provider refused the sign-in: ${why}`);
      }
      const sealed = parseCookies(request).get(LOGIN_STATE_COOKIE);
      if (sealed === undefined) {
        throw new ConsoleError('LoginStateMissing', 'This sign-in was not started from this browser, or its state was lost (cookies blocked?). Start the sign-in again.');
      }
      const opened = unseal(ctx.keys.seal, sealed);
      const state = opened === undefined ? undefined : JSON.parse(opened) as LoginState;
      if (state === undefined) throw new ConsoleError('LoginStateMissing', 'The sign-in state is not valid for this deployment. Start the sign-in again.');
      if (state.exp <= ctx.now().getTime()) throw new ConsoleError('LoginStateExpired', 'The sign-in took too long and its state expired. Start the sign-in again.');
      const cfg = await configuration();
      const current = new URL(redirectUri(request));
      current.search = new URL(request.url, 'http://x').search;
      let tokens;
      try {
        tokens = await client.authorizationCodeGrant(cfg, current, {
          pkceCodeVerifier: state.verifier, expectedState: state.state, expectedNonce: state.nonce, idTokenExpected: true,
        });
      } catch (err) {
        throw new ConsoleError('OidcFailed', `The OpenID sign-in could not be completed: ${(err as Error).message}`, { cause: err });
      }
      const claims: Record<string, unknown> = { ...tokens.claims() };
      const policies = policiesFromClaim(claims[settings.claimName]);
      if (policies.length === 0) {
        throw new ConsoleError('AccessDenied', `Your OpenID account has no "${settings.claimName}" claim naming a policy, so it may not use this console.`);
      }
      const name = [claims.preferred_username, claims.email, claims.sub].find((v): v is string => typeof v === 'string' && v !== '') ?? 'oidc-user';
      reply.header('set-cookie', clear);
      ctx.startSession(request, reply, { sub: name, kind: 'oidc', policies });
      return reply.redirect(`${COOKIE_PATH}/#/browser`, 302);
    } catch (err) {
      const { error, internal } = toConsoleError(err);
      if (internal || error.code === 'OidcFailed') request.log.warn({ err }, 'OpenID sign-in failed');
      reply.header('set-cookie', clear);
      return failurePage(reply, error);
    }
  });
};
