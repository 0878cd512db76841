import { S3Error } from '../s3-error.js';
import { elementsOf, parseXmlBody, textOf, textsOf } from '../xml/parse.js';
import { S3_XMLNS } from '../xml/responses.js';
import { xmlDocument } from '../../shared/index.js';
import type { CorsMethod, CorsRule } from './cors-rules.js';

/**
 * The CORSConfiguration document of Put/GetBucketCors
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html#API_PutBucketCors_RequestSyntax),
 * and the JSON form the rules are stored in.
 */

/**
 * Decodes a `<CORSConfiguration>` body into rules (structure only: values are trimmed, limits and
 * methods are checked by validateCorsRules). MaxAgeSeconds that is not a non-negative integer is MalformedXML.
 */
export function decodeCorsConfiguration(body: Buffer): CorsRule[] {
  const root = parseXmlBody(body, 'CORSConfiguration');
  return elementsOf(root, 'CORSRule').map((r) => {
    const rule: CorsRule = {
      allowedOrigins: textsOf(r, 'AllowedOrigin').map((s) => s.trim()),
      // Unknown methods are kept here so that validateCorsRules can name them in its error.
      allowedMethods: textsOf(r, 'AllowedMethod').map((s) => s.trim() as CorsMethod),
      allowedHeaders: textsOf(r, 'AllowedHeader').map((s) => s.trim()),
      exposeHeaders: textsOf(r, 'ExposeHeader').map((s) => s.trim()),
    };
    const id = textOf(r, 'ID');
    if (id !== undefined) rule.id = id;
    const maxAge = textOf(r, 'MaxAgeSeconds')?.trim();
    if (maxAge !== undefined) {
      if (!/^\d{1,10}$/.test(maxAge) || Number(maxAge) > 2 ** 31 - 1) {
        throw new S3Error('MalformedXML', { message: 'MaxAgeSeconds must be a non-negative integer.' });
      }
      rule.maxAgeSeconds = Number(maxAge);
    }
    return rule;
  });
}

/** The CORSConfiguration document of GetBucketCors. */
export function encodeCorsConfiguration(rules: readonly CorsRule[]): string {
  return xmlDocument('CORSConfiguration', {
    CORSRule: rules.map((r) => ({
      ID: r.id,
      AllowedHeader: r.allowedHeaders,
      AllowedMethod: r.allowedMethods,
      AllowedOrigin: r.allowedOrigins,
      ExposeHeader: r.exposeHeaders,
      MaxAgeSeconds: r.maxAgeSeconds,
    })),
  }, S3_XMLNS);
}

/** The stored form of validated rules (opaque to the engine). */
export function storeCorsRules(rules: readonly CorsRule[]): string {
  return JSON.stringify({ v: 1, rules });
}

/** Reads rules written by storeCorsRules; anything else is an internal error (the record was corrupted). */
export function loadCorsRules(stored: string): CorsRule[] {
  const doc = JSON.parse(stored) as { v?: unknown; rules?: unknown };
  if (doc.v !== 1 || !Array.isArray(doc.rules)) throw new Error('stored CORS configuration has an unknown form');
  return doc.rules as CorsRule[];
}
