/**
 * Connection-level limits of the HTTP listeners (issue 10 "Resource limits"; docs/limits.md). Bodies are not
 * limited here: object data streams with back-pressure, and each route caps what it buffers (XML bodies:
 * MAX_XML_BODY_BYTES in http/s3/body.ts).
 */

/** The limits one listener applies to every connection. */
export interface HttpLimits {
  /** Largest request line + header section Node's parser accepts (bytes); beyond it: 400 RequestHeaderSectionTooLarge. */
  maxHeaderBytes: number;
  /**
   * Time a client has to send its whole header section, from the request's first byte (ms). A client that
   * trickles headers (slowloris) is answered 400 RequestTimeout and disconnected once it is over.
   */
  headersTimeoutMs: number;
  /** How often the server looks for connections over headersTimeoutMs (ms); the cut happens at most this much later. */
  connectionsCheckIntervalMs: number;
  /**
   * A connection on which nothing is read or written for this long is closed (ms), e.g. an upload whose body
   * stalls. 0 disables it. Long transfers are unaffected as long as bytes keep moving.
   */
  idleTimeoutMs: number;
}

/** The defaults of the API listener (:9000). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  // Node's own default, stated explicitly: the S3 error handler reports it as MaxSizeAllowed.
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 30_000,
  connectionsCheckIntervalMs: 5_000,
  idleTimeoutMs: 300_000,
};
