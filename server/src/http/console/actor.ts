/**
 * The signed-in identity a console request acts as. A key session acts exactly as its access key would over S3
 * (root always allowed, users and service accounts through IamStore.decide); an OpenID Connect session is allowed
 * what the policies named by its policy claim allow, evaluated like a user's attached policies.
 */
import type { FastifyRequest } from 'fastify';
import {
  evaluatePolicy, parseIdentityPolicy, type BucketPolicy, type ConditionKey, type IamStore, type PolicyDecision,
} from '../../iam/index.js';
import { ConsoleError } from './console-error.js';
import type { Session } from './session.js';

/** Who is acting, and how a decision is made for them. */
export interface Actor {
  readonly session: Session;
  /** The name the console shows. */
  readonly name: string;
  readonly isRoot: boolean;
  decide(action: string, resource: string, extra?: Partial<Record<ConditionKey, string>>): PolicyDecision;
}

/** `arn:aws:s3:::bucket` or `arn:aws:s3:::bucket/key` (the resource names policies use). */
export function arn(bucket: string, key?: string): string {
  return key === undefined ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
}

/** Resource admin actions are evaluated on (as the admin API does). */
export const ADMIN_RESOURCE = 'arn:aws:s3:::*';

const parsed = new Map<string, BucketPolicy | null>();

function policyOf(text: string): BucketPolicy | null {
  let p = parsed.get(text);
  if (p === undefined) {
    try {
      p = parseIdentityPolicy(text);
    } catch {
      p = null;
    }
    if (parsed.size > 1000) parsed.clear();
    parsed.set(text, p);
  }
  return p;
}

/** The actor of a verified session. */
export function actorOf(session: Session, iam: IamStore, request: FastifyRequest): Actor {
  const context = (extra: Partial<Record<ConditionKey, string>> = {}): Partial<Record<ConditionKey, string>> => ({
    'aws:sourceip': request.ip,
    ...(request.headers['user-agent'] !== undefined ? { 'aws:useragent': request.headers['user-agent'] } : {}),
    ...extra,
  });
  if (session.kind === 'keys') {
    return {
      session, name: session.sub, isRoot: iam.isRoot(session.sub),
      decide: (action, resource, extra) => iam.decide(session.sub, { action, resource, context: context(extra) }),
    };
  }
  return {
    session, name: session.sub, isRoot: false,
    decide(action, resource, extra) {
      let allowed = false;
      for (const name of session.policies ?? []) {
        const info = iam.getPolicy(name);
        const policy = info === undefined ? null : policyOf(info.policy);
        if (policy === null) continue;
        const d = evaluatePolicy(policy, { principal: { anonymous: false, accessKey: session.sub }, action, resource, context: context(extra) });
        if (d === 'deny') return 'deny';
        if (d === 'allow') allowed = true;
      }
      return allowed ? 'allow' : 'implicit-deny';
    },
  };
}

/** Throws AccessDenied naming the action unless the actor may do it. */
export function requireAllowed(actor: Actor, action: string, resource: string, extra?: Partial<Record<ConditionKey, string>>): void {
  if (actor.decide(action, resource, extra) !== 'allow') {
    throw new ConsoleError('AccessDenied', `You (${actor.name}) are not allowed ${action} on ${resource.replace(/^arn:aws:s3:::/, '')}.`);
  }
}
