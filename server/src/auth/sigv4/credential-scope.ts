import { SCOPE_TERMINATOR, SERVICE } from './constants.js';
import { SigV4Error, type SigV4ErrorCode } from './sigv4-errors.js';

/** A parsed `Credential=<access-key>/<yyyyMMdd>/<region>/<service>/aws4_request`. */
export interface Credential {
  accessKey: string;
  date: string;
  region: string;
  service: string;
  /** `<date>/<region>/<service>/aws4_request` */
  scope: string;
}

/** Where a credential came from, to word errors the way S3 does. */
export interface CredentialContext {
  code: Extract<SigV4ErrorCode, 'AuthorizationHeaderMalformed' | 'AuthorizationQueryParametersError'>;
  /** e.g. "The authorization header is malformed; " or "Error parsing the X-Amz-Credential parameter; " */
  prefix: string;
}

/**
 * Parses and checks a credential. The access key is everything before the last four '/'-separated parts.
 * Any region is accepted (recorded by the caller); the service must be s3 and the terminator aws4_request.
 */
export function parseCredential(value: string, ctx: CredentialContext): Credential {
  const parts = value.split('/');
  const malformed = (): SigV4Error => new SigV4Error(ctx.code,
    `${ctx.prefix}the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`);
  if (parts.length < 5) throw malformed();
  const [date, region, service, terminator] = parts.slice(-4) as [string, string, string, string];
  const accessKey = parts.slice(0, -4).join('/');
  if (accessKey === '' || region === '' || !/^\d{8}$/.test(date)) throw malformed();
  if (service !== SERVICE) {
    throw new SigV4Error(ctx.code, `${ctx.prefix}incorrect service "${service}". This endpoint belongs to "${SERVICE}".`);
  }
  if (terminator !== SCOPE_TERMINATOR) {
    throw new SigV4Error(ctx.code, `${ctx.prefix}incorrect terminal "${terminator}". This endpoint uses "${SCOPE_TERMINATOR}".`);
  }
  return { accessKey, date, region, service, scope: `${date}/${region}/${service}/${SCOPE_TERMINATOR}` };
}

/** Parses `host;x-amz-date;...`: non-empty, lower-case names, as the client listed them. */
export function parseSignedHeaders(value: string, ctx: CredentialContext): string[] {
  const names = value.split(';');
  if (value === '' || names.some((n) => n === '' || n !== n.toLowerCase() || /\s/.test(n))) {
    throw new SigV4Error(ctx.code, `${ctx.prefix}the SignedHeaders list "${value}" is malformed; expecting lower-case header names separated by ';'.`);
  }
  if (!names.includes('host')) {
    throw new SigV4Error(ctx.code, `${ctx.prefix}the SignedHeaders list must include "host".`);
  }
  return names;
}
