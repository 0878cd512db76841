/**
 * The one file that imports acme-client (STYLE.md §2: certs/acme). HTTP-01 only (SPEC rule 12).
 *
 * acme-client sends every request through one shared axios instance, so a custom CA for the directory's TLS and
 * shorter retry delays are set on that instance for the length of one order and restored afterwards; orders are
 * serialized so two of them never see each other's settings. TLS verification stays on: the custom CA is added to
 * the system roots, never substituted for verification.
 */
import { Agent, get } from 'node:https';
import { rootCertificates } from 'node:tls';
import * as acme from 'acme-client';
import { DeployKitError } from '../../errors.js';
import type { AcmeCa, AcmeOrderRequest, IssuedCertificate } from './ca-port.js';

/** Tuning of the real client; the defaults suit a public CA and a test CA alike. */
export interface AcmeClientOptions {
  /** First delay of acme-client's status polling (its default, 5 s, makes every order take 5 s or more). */
  readonly backoffMinMs?: number;
  readonly backoffMaxMs?: number;
  readonly backoffAttempts?: number;
  /**
   * How often a request that got no answer, a 5xx or a 429 is retried, and the base delay in seconds (linear; a
   * Retry-After header wins). acme-client's own 5 × 5 s makes an unreachable directory take 75 s to report; 3 × 2 s.
   */
  readonly retryAttempts?: number;
  readonly retryDelaySeconds?: number;
  /**
   * acme-client's own pre-check that the challenge is reachable before asking the CA to validate (it fetches
   * http://<host>/.well-known/acme-challenge/<token> itself, through this host's DNS). On by default: a failed
   * self-check costs nothing, a failed CA validation counts against the CA's rate limits (SPEC rule 12).
   */
  readonly selfCheck?: boolean;
}

/** RFC 8555 §8.1 tokens are base64url; anything else must never become a file name. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

function hintFor(message: string, req: AcmeOrderRequest): string {
  if (/certificate|self[- ]signed|unable to (get|verify)/i.test(message)) {
    return req.directoryCaPem === undefined
      ? `the directory's TLS certificate is not trusted; for a test CA give its CA file with DEPLOY_KIT_ACME_CA_FILE`
      : 'the directory\'s TLS certificate is not signed by the given CA file';
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(message)) {
    return `check that ${req.directoryUrl} is reachable from this host`;
  }
  if (/rateLimited|too many/i.test(message)) return 'the CA rate-limits this account or these names; wait, and rehearse with --staging';
  return `check that ${req.hosts.join(' and ')} resolve to this host and that port 80 reaches the proxy (ACME HTTP-01, SPEC rule 12)`;
}

/**
 * GET the directory once with node's https before acme-client runs: acme-client 5.4 loses the cause of a request
 * that got no answer at all (its retry interceptor ends in a TypeError), so an untrusted TLS certificate or a refused
 * connection is reported from here, with its real reason.
 */
function probeDirectory(url: string, agent: Agent | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = get(url, { ...(agent === undefined ? {} : { agent }), timeout: 15_000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`the directory answered HTTP ${res.statusCode ?? '?'}`));
    });
    req.on('timeout', () => { req.destroy(Object.assign(new Error('no answer within 15 s'), { code: 'ETIMEDOUT' })); });
    req.on('error', reject);
  });
}

/** acme-client behind the {@link AcmeCa} port. */
export function createAcmeClientCa(opts: AcmeClientOptions = {}): AcmeCa {
  return {
    async createAccountKey() {
      return (await acme.crypto.createPrivateKey(2048)).toString('utf8');
    },
    order(req) {
      return serialized(() => order(req, opts));
    },
  };
}

async function order(req: AcmeOrderRequest, opts: AcmeClientOptions): Promise<IssuedCertificate> {
  const defaults = acme.axios.defaults as typeof acme.axios.defaults & {
    acmeSettings: { retryMaxAttempts: number; retryDefaultDelay: number };
  };
  const saved = { agent: defaults.httpsAgent as unknown, settings: { ...defaults.acmeSettings } };
  const agent = req.directoryCaPem === undefined ? undefined : new Agent({ ca: [...rootCertificates, req.directoryCaPem], keepAlive: false });
  if (agent !== undefined) defaults.httpsAgent = agent;
  defaults.acmeSettings = {
    ...defaults.acmeSettings,
    retryMaxAttempts: opts.retryAttempts ?? 3,
    retryDefaultDelay: opts.retryDelaySeconds ?? 2,
  };
  try {
    await probeDirectory(req.directoryUrl, agent);
    const client = new acme.Client({
      directoryUrl: req.directoryUrl,
      accountKey: req.accountKeyPem,
      backoffMin: opts.backoffMinMs ?? 500,
      backoffMax: opts.backoffMaxMs ?? 30_000,
      backoffAttempts: opts.backoffAttempts ?? 10,
    });
    const [key, csr] = await acme.crypto.createCsr({ commonName: req.hosts[0] as string, altNames: [...req.hosts] });
    const chainPem = await client.auto({
      csr,
      email: req.email,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      skipChallengeVerification: opts.selfCheck === false,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        if (challenge.type !== 'http-01') throw new Error(`unsupported challenge type ${challenge.type}`);
        if (!TOKEN.test(challenge.token)) throw new Error('the CA sent a challenge token that is not base64url');
        await req.webroot.put(challenge.token, keyAuthorization);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        if (TOKEN.test(challenge.token)) await req.webroot.remove(challenge.token);
      },
    });
    return { chainPem, keyPem: key.toString('utf8') };
  } catch (err) {
    if (err instanceof DeployKitError) throw err;
    const message = err instanceof TypeError && /reading 'config'/.test(err.message)
      ? 'a request to the CA got no answer (connection refused, reset or timed out)'
      : describe(err);
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `ACME order at ${req.directoryUrl} failed: ${message}`, {
      hint: hintFor(message, req),
      cause: err,
    });
  } finally {
    defaults.httpsAgent = saved.agent;
    defaults.acmeSettings = saved.settings;
  }
}
