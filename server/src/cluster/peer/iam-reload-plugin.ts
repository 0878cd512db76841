/**
 * `POST /svc/peer/iam/reload` (issue 4 "IAM … cached on every node, reloaded through peer calls when changed"):
 * a node that changed IAM records tells its peers which ones, and each reloads them from storage. The body names
 * the records (`{"changes":[{"kind":"user","name":"alice"}]}`); an empty body or `{}` asks for a full reload.
 * Authenticated with the node token like every peer route: 403 and no reload without it. The cluster layer
 * does not know IAM: the reload itself is the caller's callback.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RpcCredentials } from '../rpc/index.js';
import { PEER_PREFIX } from './peer-info.js';
import { badRequest, setupPeerJson } from './peer-json.js';

/** Path of the reload call. */
export const IAM_RELOAD_PATH = `${PEER_PREFIX}/iam/reload`;

/** Record kinds a reload may name (the IAM store's record kinds). */
export const IAM_RELOAD_KINDS = ['user', 'policy', 'service-account', 'group'] as const;

/** One record to reload. */
export interface IamReloadItem {
  readonly kind: (typeof IAM_RELOAD_KINDS)[number];
  /** Access key or policy name. */
  readonly name: string;
}

/** Options of {@link iamReloadPlugin}. */
export interface IamReloadPluginOptions {
  credentials: RpcCredentials;
  /** Reloads the named records, or everything when `items` is undefined; rejects when storage cannot be read. */
  reload: (items: readonly IamReloadItem[] | undefined) => Promise<void>;
  now?: () => number;
}

/** Most records one call may name (a larger change asks for a full reload). */
export const MAX_RELOAD_ITEMS = 1000;
const MAX_NAME_LENGTH = 256;

/** The items of a request body; undefined for a full reload. Throws a 400 error on anything else. */
export function parseReloadBody(body: unknown): IamReloadItem[] | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object');
  const changes = (body as { changes?: unknown }).changes;
  if (changes === undefined) return undefined;
  if (!Array.isArray(changes) || changes.length > MAX_RELOAD_ITEMS) throw badRequest(`changes must be a list of at most ${MAX_RELOAD_ITEMS} records`);
  return changes.map((c: unknown) => {
    const { kind, name } = (c ?? {}) as { kind?: unknown; name?: unknown };
    if (!(IAM_RELOAD_KINDS as readonly unknown[]).includes(kind)) throw badRequest(`kind must be one of ${IAM_RELOAD_KINDS.join(', ')}`);
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) throw badRequest(`name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
    return { kind: kind as IamReloadItem['kind'], name };
  });
}

/** Fastify plugin serving `POST /svc/peer/iam/reload`. */
export const iamReloadPlugin: FastifyPluginAsync<IamReloadPluginOptions> = async (app, opts) => {
  setupPeerJson(app, { credentials: opts.credentials, now: opts.now, what: 'IAM reload', bodyLimit: 256 * 1024 });
  app.post(IAM_RELOAD_PATH, async (request) => {
    const items = parseReloadBody(request.body);
    await opts.reload(items);
    return { reloaded: items === undefined ? 'all' : items.length };
  });
};

Object.assign(iamReloadPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-iam-reload', fastify: '5.x' } });
