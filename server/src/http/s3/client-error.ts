import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { newHostId, newRequestId } from '../shared/index.js';
import { encodeError } from './xml/responses.js';
import { S3_ERRORS } from './s3-error.js';

type ClientErrorListener = (err: Error & { code?: string }, socket: Duplex) => void;

/** Options of {@link installS3ClientErrorHandler}. */
export interface ClientErrorOptions {
  /** The listener's header size limit, reported as MaxSizeAllowed (default: Node's 16 KiB). */
  maxHeaderBytes?: number;
}

/** A raw HTTP/1.1 400 response carrying an S3 XML error, closing the connection. */
function rawErrorResponse(code: 'RequestHeaderSectionTooLarge' | 'RequestTimeout', extra: Record<string, string>): string {
  const requestId = newRequestId();
  const body = encodeError({ code, message: S3_ERRORS[code].message, requestId, hostId: newHostId(), extra });
  return [
    `HTTP/1.1 400 Bad Request`,
    'Content-Type: application/xml',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-amz-request-id: ${requestId}`,
    'Server: svc',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The raw HTTP/1.1 response for a header section Node's parser refused, as an S3 XML error. */
export function headerOverflowResponse(maxHeaderBytes = 16 * 1024): string {
  return rawErrorResponse('RequestHeaderSectionTooLarge', { MaxSizeAllowed: String(maxHeaderBytes) });
}

/**
 * The raw HTTP/1.1 response for a client whose header section did not arrive within the header timeout
 * (slowloris): AWS's RequestTimeout (400) instead of Node's bare 408.
 */
export function headerTimeoutResponse(): string {
  return rawErrorResponse('RequestTimeout', {});
}

/**
 * A `clientError` handler: Node's parser rejects header sections above its limit (16 KiB by default,
 * `--max-http-header-size`) before any route runs and would answer a bare 431. S3 clients expect an XML
 * error, so that case becomes 400 RequestHeaderSectionTooLarge (the code AWS uses); every other parser
 * error goes to `fallback` (fastify's default handler when installed through
 * installS3ClientErrorHandler).
 */
export function s3ClientErrorHandler(fallback?: ClientErrorListener, opts: ClientErrorOptions = {}): ClientErrorListener {
  return (err, socket) => {
    if (err.code === 'HPE_HEADER_OVERFLOW' && socket.writable) {
      socket.end(headerOverflowResponse(opts.maxHeaderBytes));
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable) {
      socket.end(headerTimeoutResponse());
      return;
    }
    if (fallback !== undefined) {
      fallback(err, socket);
    } else if (!socket.destroyed) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
  };
}

/**
 * Installs s3ClientErrorHandler on an http.Server (e.g. `app.server` of the :9000 fastify instance),
 * replacing the existing `clientError` listeners and delegating everything but header overflow to them.
 */
export function installS3ClientErrorHandler(server: Server, opts: ClientErrorOptions = {}): void {
  const previous = server.listeners('clientError') as ClientErrorListener[];
  server.removeAllListeners('clientError');
  const fallback: ClientErrorListener | undefined = previous.length === 0
    ? undefined
    : (err, socket) => { for (const l of previous) l.call(server, err, socket); };
  server.on('clientError', s3ClientErrorHandler(fallback, opts));
}
