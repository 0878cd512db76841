/** Public names of http/shared: helpers every HTTP surface may use (STYLE.md §2, convention 15). */
export { newRequestId, newHostId } from './request-id.js';
export { readBodyCapped, BodyTooLargeError } from './read-body.js';
export { RawXml, xmlDocument, escapeXml } from './xml-writer.js';
export type { XmlValue, XmlObject } from './xml-writer.js';
export { DEFAULT_HTTP_LIMITS } from './http-limits.js';
export type { HttpLimits } from './http-limits.js';
