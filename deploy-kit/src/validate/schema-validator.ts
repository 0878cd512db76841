import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type FormatsPlugin = (ajv: Ajv) => Ajv;

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import may be the module object.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

const cache = new WeakMap<object, ValidateFunction>();

/**
 * Compiles (once per schema object) and runs a JSON Schema. SchemaStore's Traefik schemas are
 * draft-07 and use keywords ajv's strict mode rejects, hence `strict: false`.
 */
export function validateAgainst(schema: object, doc: unknown): ErrorObject[] {
  let validate = cache.get(schema);
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate(doc) ? [] : [...(validate.errors ?? [])];
}
