import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { S3Error } from '../s3-error.js';

/** A parsed XML element: text, or children by name (arrays where the schema repeats an element). */
export type XmlNode = string | { [name: string]: XmlNode | XmlNode[] | undefined };

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes exactly the five predefined XML entities and numeric character references
 * (https://www.w3.org/TR/xml/#sec-predefined-ent). Numeric references to control characters are kept,
 * because S3 clients use them for keys holding such bytes; DTDs are rejected before parsing, so no
 * other entity can exist.
 */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (!ref.startsWith('#')) return NAMED_ENTITIES[ref] ?? whole;
    const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  entityDecoder: {
    setExternalEntities: () => undefined,
    addInputEntities: () => undefined,
    reset: () => undefined,
    setXmlVersion: () => undefined,
    decode: decodeEntities,
  },
  isArray: (_name, jpath) => typeof jpath === 'string' && ARRAY_PATHS.has(jpath),
});

// Elements that may repeat in the request bodies we accept.
const ARRAY_PATHS = new Set([
  'Delete.Object', 'CompleteMultipartUpload.Part', 'Tagging.TagSet.Tag', 'CORSConfiguration.CORSRule',
  'CORSConfiguration.CORSRule.AllowedOrigin', 'CORSConfiguration.CORSRule.AllowedMethod',
  'CORSConfiguration.CORSRule.AllowedHeader', 'CORSConfiguration.CORSRule.ExposeHeader',
]);

function malformed(message?: string, cause?: unknown): S3Error {
  return new S3Error('MalformedXML', { ...(message !== undefined ? { message } : {}), cause });
}

/**
 * Parses a request body and returns the content of its root element, which must be named `root`.
 * Anything that is not well-formed XML, uses a DTD, or has another root is MalformedXML
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
export function parseXmlBody(body: Buffer, root: string): Exclude<XmlNode, string> {
  const text = body.toString('utf8');
  if (text.trim() === '') throw new S3Error('MalformedXML');
  // DTDs are never part of an S3 request and are the door to entity-expansion attacks.
  if (/<!DOCTYPE/i.test(text)) throw malformed('DTDs are not allowed in request bodies.');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw malformed(undefined, new Error(valid.err.msg));
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw malformed(undefined, cause);
  }
  const roots = Object.keys(doc).filter((k) => k !== '?xml');
  if (roots.length !== 1 || roots[0] !== root) throw malformed(`The root element must be ${root}.`);
  const content = doc[root];
  if (content === '' || content === undefined) return {};
  if (typeof content !== 'object' || content === null) throw malformed(`${root} must contain elements.`);
  return content as Exclude<XmlNode, string>;
}

/** The text of a child element, or undefined when absent; an element with children is MalformedXML. */
export function textOf(node: XmlNode | XmlNode[] | undefined, name: string): string | undefined {
  if (node === undefined) return undefined;
  if (Array.isArray(node) || typeof node === 'string') throw malformed(`${name} must be a single text element.`);
  const v = node[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw malformed(`${name} must be a text element.`);
  return v;
}

/** The repeated children named `name` (always an array), each an element. */
export function elementsOf(node: Exclude<XmlNode, string>, name: string): Array<Exclude<XmlNode, string>> {
  const v = node[name];
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((item) => {
    if (item === '') return {};
    if (typeof item !== 'object') throw malformed(`${name} must contain elements.`);
    return item;
  });
}

/** The texts of the repeated text children named `name` (always an array); an element with children is MalformedXML. */
export function textsOf(node: Exclude<XmlNode, string>, name: string): string[] {
  const v = node[name];
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((item) => {
    if (typeof item !== 'string') throw malformed(`${name} must be a text element.`);
    return item;
  });
}
