import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newHostId, newRequestId } from '../shared/index.js';
import { HOST_ID_HEADER, REQUEST_ID_HEADER, sendS3Error } from './reply-error.js';
import { SERVER_NAME } from './server-name.js';
import { S3Error } from './s3-error.js';

/**
 * A fastify `frameworkErrors` handler (a constructor option, so the composition root installs it):
 * errors fastify raises before any route runs — a path that is not valid percent-encoding
 * (FST_ERR_BAD_URL), a parameter over maxParamLength — become S3 XML errors (InvalidURI) with the usual
 * request-id headers instead of fastify's JSON body.
 */
export function s3FrameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, newRequestId());
  reply.header(HOST_ID_HEADER, newHostId());
  reply.header('server', SERVER_NAME);
  const s3 = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_ROUTE_MAX_PARAM_LENGTH'
    ? new S3Error('InvalidURI', { cause: error })
    : error;
  sendS3Error(request, reply, s3);
}
