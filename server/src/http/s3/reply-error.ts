import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeError } from './xml/responses.js';
import { toS3Error } from './error-mapping.js';

/** Header names every S3 response carries. */
export const REQUEST_ID_HEADER = 'x-amz-request-id';
/** Extended request id header. */
export const HOST_ID_HEADER = 'x-amz-id-2';

// CORS headers stay: without them a browser cannot read why a cross-origin request failed.
function keptOnError(name: string): boolean {
  return name === REQUEST_ID_HEADER || name === HOST_ID_HEADER || name === 'server' || name === 'connection'
    || name === 'vary' || name.startsWith('access-control-');
}

function headerText(reply: FastifyReply, name: string): string {
  const v = reply.getHeader(name);
  return typeof v === 'string' ? v : '';
}

/**
 * Renders any error as the S3 `<Error>` document (HEAD: status and headers only, since a HEAD response
 * has no body: https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html). Unexpected errors are
 * logged with their full detail and answered with a generic InternalError (STYLE.md convention 2).
 */
export function sendS3Error(request: FastifyRequest, reply: FastifyReply, err: unknown, resource?: string): FastifyReply {
  const { error, internal } = toS3Error(err);
  if (internal) request.log.error({ err, s3Code: error.code }, 's3 request failed');
  else request.log.debug({ s3Code: error.code, msg: error.message }, 's3 client error');
  if (reply.sent || reply.raw.headersSent) {
    // Headers are gone (a streamed body failed half-way): the only honest signal left is a cut connection.
    reply.raw.destroy(err instanceof Error ? err : undefined);
    return reply;
  }
  // A request body we did not read must not be parsed as the next request on a kept-alive connection.
  if (!request.raw.complete) reply.header('connection', 'close');
  for (const name of Object.keys(reply.getHeaders())) {
    if (!keptOnError(name)) reply.removeHeader(name);
  }
  reply.code(error.status);
  reply.headers(error.headers);
  if (request.method === 'HEAD') return reply.send();
  const body = encodeError({
    code: error.code,
    message: error.message,
    resource: error.resource ?? resource ?? pathOf(request),
    requestId: headerText(reply, REQUEST_ID_HEADER),
    hostId: headerText(reply, HOST_ID_HEADER),
    extra: error.extra,
  });
  return reply.header('content-type', 'application/xml').send(body);
}

function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

