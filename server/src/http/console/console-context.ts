/**
 * What every console route module shares: the services from the composition root, the derived keys, and the
 * session checks (cookie → verified session → actor; CSRF and Origin on mutations).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IamStore } from '../../iam/index.js';
import type { ObjectLayer } from '../../storage/index.js';
import { actorOf, type Actor } from './actor.js';
import { ConsoleError } from './console-error.js';
import { deriveConsoleKeys, sameString, type ConsoleKeys } from './console-keys.js';
import type { OidcSettings } from './oidc-settings.js';
import { browserOrigin, cookie, parseCookies, sameOrigin, trustedProxies, DEFAULT_TRUSTED_PROXIES, type TrustedProxies } from './request-origin.js';
import { csrfTokenOf, issueSession, secretFingerprint, verifySession, type NewSession, type Session } from './session.js';

/** The services the console API works with (from main.ts, the composition root). */
export interface ConsoleServices {
  /** Root credentials: the session and login-state keys are derived from them. */
  root: { accessKey: string; secretKey: string };
  iam: IamStore;
  objectLayer: ObjectLayer;
  /** The cluster information report, built by the admin API's report builder (docs/admin-api.md). */
  info: () => Promise<unknown>;
  region: string;
  /** The S3 endpoint presigned share links point to (SVC_SERVER_URL, else the API listener's address). */
  s3Url: () => string;
  /** SVC_CONSOLE_TRUSTED_PROXIES (default: loopback and private ranges). */
  trustedProxies?: readonly string[];
  /** Session lifetime (default 12 h). */
  sessionTtlSeconds?: number;
  /** OpenID Connect sign-in; absent when SVC_IDENTITY_OPENID_CONFIG_URL is unset. */
  oidc?: OidcSettings;
  /** SVC_BROWSER_REDIRECT_URL: the console's external URL behind a proxy. */
  browserRedirectUrl?: string;
  /** Period of the Status pushes over the WebSocket (default 2 s). */
  statusIntervalMs?: number;
  now?: () => Date;
}

/** Name of the session cookie (not the proxy's affinity cookie `svc_console`, SPEC §4 rule 11). */
export const SESSION_COOKIE = 'svc_session';
/** Path every console cookie is scoped to. */
export const COOKIE_PATH = '/svc/console';

/** What the front end learns about its session. */
export interface SessionView {
  user: string;
  kind: Session['kind'];
  isRoot: boolean;
  csrfToken: string;
  expiresAt: string;
  policies?: readonly string[];
}

/** See the module comment. */
export class ConsoleContext {
  readonly services: ConsoleServices;
  readonly keys: ConsoleKeys;
  readonly trusted: TrustedProxies;
  readonly #actors = new WeakMap<FastifyRequest, Actor>();

  constructor(services: ConsoleServices) {
    this.services = services;
    this.keys = deriveConsoleKeys(services.root);
    this.trusted = trustedProxies(services.trustedProxies ?? DEFAULT_TRUSTED_PROXIES);
  }

  now(): Date {
    return this.services.now?.() ?? new Date();
  }

  /** True when the browser reached us over HTTPS (directly or through a trusted proxy). */
  secure(request: FastifyRequest): boolean {
    return browserOrigin(request, this.trusted).secure;
  }

  /** Refuses a request whose Origin names another host (cross-site). */
  checkOrigin(request: FastifyRequest): void {
    if (!sameOrigin(request, browserOrigin(request, this.trusted))) {
      throw new ConsoleError('CsrfRejected', 'The request came from another site and was refused.');
    }
  }

  /** The actor of the request's session; throws SessionRequired/SessionExpired (401) otherwise. */
  async actor(request: FastifyRequest): Promise<Actor> {
    const known = this.#actors.get(request);
    if (known !== undefined) return known;
    const session = verifySession(this.keys, parseCookies(request).get(SESSION_COOKIE), this.now());
    if (session.kind === 'keys') {
      // The user may have been removed, disabled or given a new secret since: the session ends with it.
      const secret = await this.services.iam.lookupSecret(session.sub);
      if (secret === undefined || session.fp !== secretFingerprint(this.keys, session.sub, secret)) {
        throw new ConsoleError('SessionExpired', 'Your credentials changed or were disabled; sign in again.');
      }
    }
    const actor = actorOf(session, this.services.iam, request);
    this.#actors.set(request, actor);
    return actor;
  }

  /** The actor of a mutation: also checks the CSRF token header and the Origin. */
  async mutator(request: FastifyRequest): Promise<Actor> {
    const actor = await this.actor(request);
    this.checkOrigin(request);
    const sent = request.headers['x-csrf-token'];
    if (typeof sent !== 'string' || !sameString(sent, csrfTokenOf(this.keys, actor.session))) {
      throw new ConsoleError('CsrfRejected', 'The request lacks this session\'s CSRF token; reload the page.');
    }
    return actor;
  }

  /** Opens a session: sets the cookie and answers what the front end needs. */
  startSession(request: FastifyRequest, reply: FastifyReply, data: NewSession): SessionView {
    const ttl = this.services.sessionTtlSeconds ?? 12 * 3600;
    const { token, session } = issueSession(this.keys, data, ttl, this.now());
    reply.header('set-cookie', cookie(SESSION_COOKIE, token, { path: COOKIE_PATH, maxAge: ttl, secure: this.secure(request) }));
    return this.view(actorOf(session, this.services.iam, request));
  }

  /** Clears the session cookie. */
  endSession(request: FastifyRequest, reply: FastifyReply): void {
    reply.header('set-cookie', cookie(SESSION_COOKIE, '', { path: COOKIE_PATH, maxAge: 0, secure: this.secure(request) }));
  }

  view(actor: Actor): SessionView {
    const s = actor.session;
    return {
      user: actor.name, kind: s.kind, isRoot: actor.isRoot, csrfToken: csrfTokenOf(this.keys, s),
      expiresAt: new Date(s.exp * 1000).toISOString(), ...(s.policies !== undefined ? { policies: s.policies } : {}),
    };
  }

  /** A fingerprint of a key session's secret (see session.ts). */
  fingerprint(accessKey: string, secretKey: string): string {
    return secretFingerprint(this.keys, accessKey, secretKey);
  }
}
