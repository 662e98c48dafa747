// Structural validation against the JSON Schema shipped for editors, translated to spec errors.

import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Memo, sha, sourceSalt } from '../memo.ts';
import { didYouMean, SpecError } from './errors.ts';
import { jsonExact, type Path, type RawSpec } from './load.ts';

const require = createRequire(import.meta.url);
export const SPEC_SCHEMA = require('../../schema/op-spec.schema.json') as Record<string, unknown>;

type AjvModule = typeof import('ajv');
// verbose: errors carry their parent schema, which lists the allowed fields for hints.
let compiled: ValidateFunction | undefined;
const validator = () =>
  (compiled ??= new (require('ajv') as AjvModule).Ajv({ allErrors: true, strict: false, verbose: true }).compile(
    SPEC_SCHEMA,
  ));

/** Data that validated once validates again: memoized, so the schema compiles only for a new or edited spec. */
const valid = new Memo('spec-valid');
const VALID_SALT = sha(
  sourceSalt(import.meta.url),
  JSON.stringify(SPEC_SCHEMA),
  (require('ajv/package.json') as { version: string }).version,
);

/**
 * Whether data is valid, by the schema compiled to code once (Ajv's standalone output, memoized by the schema's hash):
 * a new spec is checked without loading Ajv or compiling the schema, which takes longer than a scaffold's check. Only
 * a spec that fails needs Ajv itself, for its errors.
 */
let passes: ((data: unknown) => boolean) | undefined;
const standalone = new Memo('spec-validator', 16);
function isValid(data: unknown): boolean {
  if (!passes) {
    const key = sha(VALID_SALT, 'standalone');
    let code = standalone.get(key);
    if (code === undefined) {
      const { Ajv } = require('ajv') as AjvModule;
      const toCode = (require('ajv/dist/standalone') as { default: (ajv: unknown, fn: unknown) => string }).default;
      const ajv = new Ajv({ strict: false, code: { source: true } });
      code = toCode(ajv, ajv.compile(SPEC_SCHEMA));
      standalone.set(key, code);
    }
    const m = { exports: {} as unknown };
    // The generated module is CommonJS; the runtime helpers it may require are Ajv's own.
    new Function('require', 'module', 'exports', code)(require, m, m.exports);
    const fn = (m.exports as { default?: unknown }).default ?? m.exports;
    passes = (data) => (fn as (d: unknown) => boolean)(data) === true;
  }
  return passes(data);
}

export function checkStructure(raw: RawSpec): SpecError[] {
  // Only data JSON gives back exactly has a key that stands for it (no infinities, -0, undefined).
  const key = jsonExact(raw.data) ? sha(VALID_SALT, JSON.stringify(raw.data)) : undefined;
  if (key !== undefined && valid.get(key) === 'ok') return [];
  if (isValid(raw.data)) {
    if (key !== undefined) valid.set(key, 'ok');
    return [];
  }
  const validate = validator();
  if (validate(raw.data)) return []; // never: both compile the same schema
  const errors = (validate.errors ?? []).filter(isSpecific);
  const seen = new Set<string>();
  const out: SpecError[] = [];
  for (const e of errors) {
    const path = pointerToPath(e.instancePath);
    const translated = translate(e, path, raw);
    const key = `${translated.loc.line}:${translated.loc.col}:${translated.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(translated);
    }
  }
  return out;
}

/** Drops the umbrella errors of `oneOf` and the branch errors that are less specific than another. */
function isSpecific(e: ErrorObject): boolean {
  return e.keyword !== 'oneOf' && e.keyword !== 'if';
}

function pointerToPath(pointer: string): Path {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function translate(e: ErrorObject, path: Path, raw: RawSpec): SpecError {
  const where = path.length ? `'${path.join('.')}'` : 'the spec';
  switch (e.keyword) {
    case 'additionalProperties': {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      const allowed = allowedFields(e);
      return new SpecError(
        raw.locate([...path, field], true),
        `unknown field '${field}' in ${where}`,
        [didYouMean(field, allowed), allowed.length ? `allowed: ${allowed.join(', ')}` : undefined]
          .filter(Boolean)
          .join('; '),
      );
    }
    case 'required': {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return new SpecError(raw.locate(path, true), `missing field '${field}' in ${where}`, `add '${field}:'`);
    }
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
      const got = String(valueAt(raw.data, path));
      return new SpecError(
        raw.locate(path),
        `${where} is '${got}', which is not allowed`,
        [didYouMean(got, allowed), `one of: ${allowed.join(', ')}`].filter(Boolean).join('; '),
      );
    }
    case 'type':
      return new SpecError(
        raw.locate(path),
        `${where} must be ${(e.params as { type: string }).type}, got ${typeName(valueAt(raw.data, path))}`,
      );
    case 'pattern':
      return new SpecError(raw.locate(path), `${where} must be a lower_snake_case identifier`, `for example: my_op`);
    default:
      return new SpecError(raw.locate(path), `${where} ${e.message ?? 'is invalid'}`);
  }
}

function allowedFields(e: ErrorObject): string[] {
  const schema = e.parentSchema as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.properties ?? {});
}

function valueAt(data: unknown, path: Path): unknown {
  let v = data;
  for (const seg of path) v = (v as Record<string | number, unknown> | undefined)?.[seg];
  return v;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a mapping' : `${typeof v} ${JSON.stringify(v)}`;
}
