/**
 * A tiny, ordered XML serializer for response bodies. Object keys become elements in insertion order,
 * arrays repeat their element, `undefined` omits it. Kept deliberately small: S3 responses need no
 * attributes except the root namespace.
 */

/** A value that serializes to element content. */
export type XmlValue = string | number | boolean | Date | undefined | XmlObject | readonly XmlValue[];
/** An element's children, serialized in key order. */
export interface XmlObject {
  readonly [name: string]: XmlValue;
}

// XML 1.0 (https://www.w3.org/TR/xml/#charsets) forbids most C0 controls even as character references;
// S3 emits them as numeric references anyway, and SDK parsers accept that, so we do the same rather than
// dropping bytes of a key. CR is escaped so that XML end-of-line normalization does not turn it into LF.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for use as element content or an attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']|[\u0000-\u0008\u000B\u000C\u000D\u000E-\u001F\uFFFE\uFFFF]/g, (c) =>
    ESCAPES[c] ?? `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`,
  );
}

function textOf(value: string | number | boolean | Date): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function writeElement(name: string, value: XmlValue, out: string[]): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value as readonly XmlValue[]) writeElement(name, item, out);
    return;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    out.push(`<${name}>`);
    for (const [child, childValue] of Object.entries(value)) writeElement(child, childValue, out);
    out.push(`</${name}>`);
    return;
  }
  out.push(`<${name}>${escapeXml(textOf(value as string | number | boolean | Date))}</${name}>`);
}

/** Serializes a complete document: declaration, root element with optional `xmlns`, children. */
export function xmlDocument(root: string, body: XmlObject, namespace?: string): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(namespace === undefined ? `<${root}>` : `<${root} xmlns="${escapeXml(namespace)}">`);
  for (const [name, value] of Object.entries(body)) writeElement(name, value, out);
  out.push(`</${root}>`);
  return out.join('');
}
