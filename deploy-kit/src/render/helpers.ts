/**
 * Handlebars helpers. Only quoting lives here: `json` writes a value as a JSON literal, which is a
 * valid YAML flow scalar/sequence and a valid JS literal, so templates never hand-quote strings.
 */
export const HELPERS: Readonly<Record<string, (...args: unknown[]) => string>> = {
  json: (value: unknown) => JSON.stringify(value),
};
