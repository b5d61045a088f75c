import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BoundedCache } from '../core/bounded-cache.ts';
import type { JsonSchema, ValidationProblem } from '../core/index.ts';
import { linearFormats } from './formats.ts';
import { compileSchemaPattern } from './pattern.ts';
import { isSchemaObject, type SchemaObject, typeMask, typeNames } from './resolve.ts';
import { matchesShallowly } from './shallow-match.ts';

/** Checks tool inputs against tool schemas. */
export interface Validator {
  /** Every way `input` fails `schema`, worded for the model; empty when it is valid. Never throws. */
  validate(input: unknown, schema: JsonSchema): ValidationProblem[];
}

/** The part of an Ajv instance used here (the draft-07, 2019-09 and 2020-12 classes share it). */
interface AjvEngine {
  compile(schema: JsonSchema): ValidateFunction;
  removeSchema(schema: object): unknown;
  addFormat(name: string, format: (text: string) => boolean): unknown;
}
type AjvConstructor = new (options: Options) => AjvEngine;
type FormatsPlugin = ((engine: AjvEngine) => unknown) & { get(name: string): unknown };

/**
 * Ajv and ajv-formats are CommonJS: depending on the loader (Node, a bundler, vitest) a default
 * import is either the export itself or a namespace whose `default` is the export.
 */
function interopDefault<Export>(imported: unknown): Export {
  const namespace = imported as { readonly default?: Export };
  return namespace.default ?? (imported as Export);
}

const Ajv07 = interopDefault<AjvConstructor>(AjvModule);
const Ajv2019 = interopDefault<AjvConstructor>(Ajv2019Module);
const Ajv2020 = interopDefault<AjvConstructor>(Ajv2020Module);
const addFormats = interopDefault<FormatsPlugin>(addFormatsModule);
const linearChecks = linearFormats((name) => addFormats.get(name));

type Draft = '07' | '2019' | '2020';

/**
 * Ajv's hook for compiling `pattern`, `patternProperties` and `propertyNames` patterns: the
 * linear-time engine instead of RegExp, so no schema pattern backtracks on model text. A pattern
 * it cannot express throws UnsupportedPatternError, and the schema does not compile. (`code`
 * names the hook in generated code; only standalone code, not used here, would load it.)
 */
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => compileSchemaPattern(pattern, flags),
  { code: 'toolwire/schema/pattern.compileSchemaPattern' },
);

const AJV_OPTIONS: Options = {
  allErrors: true,
  code: { regExp: linearRegExp },
  strict: false,
  // Errors carry the offending data and the failing schema, for messages and anyOf summaries.
  verbose: true,
  // A library must not write to the console; unknown formats are simply not checked.
  logger: false,
};

function createEngine(draft: Draft): AjvEngine {
  const AjvClass = draft === '2020' ? Ajv2020 : draft === '2019' ? Ajv2019 : Ajv07;
  const engine = new AjvClass(AJV_OPTIONS);
  addFormats(engine);
  // ajv-formats' regular expressions run on model text too: replaced by linear-time checks.
  for (const [name, check] of linearChecks) engine.addFormat(name, check);
  return engine;
}

function draftOf(schema: SchemaObject): Draft {
  const declared = Object.hasOwn(schema, '$schema') ? schema.$schema : undefined;
  if (typeof declared !== 'string') return '07';
  if (declared.includes('2020-12')) return '2020';
  if (declared.includes('2019-09')) return '2019';
  return '07';
}

type Compiled =
  | { readonly ok: true; readonly check: ValidateFunction }
  | { readonly ok: false; readonly reason: string };

/**
 * A validator backed by Ajv (all errors, unknown keywords tolerated, `format` checked through
 * ajv-formats; draft-07 unless `$schema` names 2019-09 or 2020-12). Each schema object is
 * compiled once; a schema Ajv cannot compile yields one problem saying so instead of an
 * exception.
 */
export function createValidator(): Validator {
  const engines = new Map<Draft, AjvEngine>();
  // Keyed by the tool's schema object, so schemas dropped by the caller are dropped here too.
  const compiledObjects = new WeakMap<object, Compiled>();
  const compiledBooleans = new Map<boolean, Compiled>();
  // By the schema's JSON text too: a server gets new schema objects with every request (the
  // proxy, the middleware behind an HTTP API), and compiling is the costliest part of a call.
  const compiledTexts = new BoundedCache<string, Compiled>(MAX_COMPILED_TEXTS);

  function engineFor(draft: Draft): AjvEngine {
    let engine = engines.get(draft);
    if (!engine) {
      engine = createEngine(draft);
      engines.set(draft, engine);
    }
    return engine;
  }

  function compile(schema: JsonSchema): Compiled {
    if (!isSchemaObject(schema)) {
      let compiled = compiledBooleans.get(schema === true);
      if (!compiled) {
        compiled = compileUncached(schema);
        compiledBooleans.set(schema === true, compiled);
      }
      return compiled;
    }
    let compiled = compiledObjects.get(schema);
    if (compiled) return compiled;
    const text = schemaText(schema);
    compiled = text === undefined ? undefined : compiledTexts.get(text);
    if (!compiled) {
      compiled = compileUncached(schema);
      if (text !== undefined) compiledTexts.set(text, compiled);
    }
    compiledObjects.set(schema, compiled);
    return compiled;
  }

  function compileUncached(schema: JsonSchema): Compiled {
    const draft = isSchemaObject(schema) ? draftOf(schema) : '07';
    // `$schema` has chosen the class; without it Ajv needs no meta-schema it may not know
    // (draft-04, draft-06, OpenAPI dialects are checked as draft-07).
    let target: JsonSchema = schema;
    if (isSchemaObject(schema) && Object.hasOwn(schema, '$schema')) {
      const { $schema: _declared, ...rest } = schema;
      target = rest;
    }
    try {
      return { ok: true, check: compileOnce(engineFor(draft), target) };
    } catch (firstError) {
      // Two tools declaring the same `$id`s with different content collide in one Ajv
      // instance; such a schema gets an instance of its own.
      if (!/already exists|ambiguous|resolves to more than one/i.test(errorText(firstError))) {
        return { ok: false, reason: errorText(firstError) };
      }
      try {
        return { ok: true, check: compileOnce(createEngine(draft), target) };
      } catch (error) {
        return { ok: false, reason: errorText(error) };
      }
    }
  }

  return {
    validate(input, schema) {
      try {
        const compiled = compile(schema);
        if (!compiled.ok) {
          return [
            {
              path: '',
              keyword: 'schema',
              message: `the tool's input schema is invalid, so the input could not be checked: ${compiled.reason}`,
            },
          ];
        }
        if (compiled.check(input)) return [];
        return describeErrors(compiled.check.errors ?? [], input, schema);
      } catch (error) {
        return [
          {
            path: '',
            keyword: 'schema',
            message: `the input could not be checked against the tool's schema: ${errorText(error)}`,
          },
        ];
      }
    },
  };
}

/** Schemas remembered by their text at most, and the longest text remembered. */
const MAX_COMPILED_TEXTS = 256;
const MAX_SCHEMA_TEXT_CHARS = 64 * 1024;

/** A schema's JSON text, the key of the text cache; undefined when it has none or is too long. */
function schemaText(schema: object): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    return undefined; // a cycle, a BigInt: not JSON, so not cached by text
  }
  return text !== undefined && text.length <= MAX_SCHEMA_TEXT_CHARS ? text : undefined;
}

function compileOnce(engine: AjvEngine, schema: JsonSchema): ValidateFunction {
  const check = engine.compile(schema);
  // Ajv keeps every compiled schema in its own cache (and its `$id` in its registry); the
  // WeakMap above is the cache, so Ajv lets go and a later schema may reuse the `$id`.
  if (isSchemaObject(schema)) engine.removeSchema(schema);
  return check;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- Messages ----------------------------------------------------------------------------

const MAX_QUOTED_CHARS = 60;

function quote(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 1)}…` : text;
}

/** `string "abc"`, `number 3.5`, `null`, `array`: what the model wrote, briefly. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${quote(value)}`;
}

function decodeSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** `/options/depth` → `options.depth`, `/items/2` → `items[2]` (when `items` is an array). */
function readablePath(pointer: string, input: unknown): string {
  if (pointer === '') return '';
  let readable = '';
  let current = input;
  for (const segment of pointer.slice(1).split('/')) {
    const key = decodeSegment(segment);
    if (Array.isArray(current)) readable += `[${key}]`;
    else readable += readable === '' ? key : `.${key}`;
    current =
      typeof current === 'object' && current !== null && Object.hasOwn(current, key)
        ? (current as Record<string, unknown>)[key]
        : undefined;
  }
  return readable;
}

function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function joinAlternatives(options: readonly string[]): string {
  if (options.length <= 1) return options[0] ?? 'nothing';
  return `${options.slice(0, -1).join(', ')} or ${options[options.length - 1]}`;
}

function param(error: ErrorObject, name: string): unknown {
  const params = error.params as Record<string, unknown>;
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

/** A message for one Ajv error that names the parameter and says what was expected. */
function describeError(error: ErrorObject, input: unknown): string {
  const path = readablePath(error.instancePath, input);
  const subject = path === '' ? 'the input' : `parameter "${path}"`;
  const value: unknown = error.data;
  switch (error.keyword) {
    case 'required':
      return `missing required parameter "${childPath(path, String(param(error, 'missingProperty')))}"`;
    case 'dependentRequired':
    case 'dependencies': {
      const missing = childPath(path, String(param(error, 'missingProperty')));
      const present = childPath(path, String(param(error, 'property')));
      return `missing required parameter "${missing}" (required when "${present}" is given)`;
    }
    case 'additionalProperties':
      return `unexpected parameter "${childPath(path, String(param(error, 'additionalProperty')))}" (not in the schema)`;
    case 'unevaluatedProperties':
      return `unexpected parameter "${childPath(path, String(param(error, 'unevaluatedProperty')))}" (not in the schema)`;
    case 'type': {
      const expected = String(param(error, 'type')).split(',');
      return `${subject} must be ${joinAlternatives(expected)}, got ${describeValue(value)}`;
    }
    case 'enum': {
      const allowed = param(error, 'allowedValues');
      const listed = Array.isArray(allowed) ? allowed.map(quote) : [];
      const expected = listed.length === 1 ? listed[0] : `one of ${listed.join(', ')}`;
      return `${subject} must be ${expected}, got ${quote(value)}`;
    }
    case 'const':
      return `${subject} must be ${quote(param(error, 'allowedValue'))}, got ${quote(value)}`;
    case 'format':
      return `${subject} must be a valid ${String(param(error, 'format'))}, got ${quote(value)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${subject} must be ${String(param(error, 'comparison'))} ${String(param(error, 'limit'))}, got ${quote(value)}`;
    case 'multipleOf':
      return `${subject} must be a multiple of ${String(param(error, 'multipleOf'))}, got ${quote(value)}`;
    case 'minLength':
    case 'maxLength': {
      const bound = error.keyword === 'minLength' ? 'at least' : 'at most';
      const length = typeof value === 'string' ? [...value].length : 0;
      return `${subject} must be ${bound} ${String(param(error, 'limit'))} characters long, got ${length}`;
    }
    case 'minItems':
    case 'maxItems': {
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      const count = Array.isArray(value) ? value.length : 0;
      return `${subject} must have ${bound} ${String(param(error, 'limit'))} items, got ${count}`;
    }
    case 'minProperties':
    case 'maxProperties': {
      const bound = error.keyword === 'minProperties' ? 'at least' : 'at most';
      return `${subject} must have ${bound} ${String(param(error, 'limit'))} properties`;
    }
    case 'pattern':
      return `${subject} must match the pattern ${quote(param(error, 'pattern'))}, got ${quote(value)}`;
    case 'uniqueItems':
      return `${subject} must not contain duplicates (items ${String(param(error, 'j'))} and ${String(param(error, 'i'))} are equal)`;
    case 'false schema':
      return path === ''
        ? 'the tool accepts no input'
        : `parameter "${path}" is not allowed (not in the schema)`;
    case 'not':
      return `${subject} must not match the excluded schema`;
    case 'oneOf':
      return `${subject} matches more than one of the allowed forms; it must match exactly one`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

function isFailedUnion(error: ErrorObject): boolean {
  if (error.keyword === 'anyOf') return true;
  return error.keyword === 'oneOf' && param(error, 'passingSchemas') == null;
}

function within(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * The errors Ajv reported inside the branches of the union at `errors[unionIndex]`. They come
 * right before it, together: at or below its instance path, and either under its schema path
 * or (for a branch that is a compiled `$ref`) from another schema altogether.
 */
function branchErrorIndexes(errors: readonly ErrorObject[], unionIndex: number): number[] {
  const union = errors[unionIndex]!;
  const branchesPath = `${union.schemaPath}/`;
  const parentPath = `${union.schemaPath.slice(0, -union.keyword.length - 1)}/`;
  const indexes: number[] = [];
  for (let index = unionIndex - 1; index >= 0; index--) {
    const error = errors[index]!;
    if (!within(error.instancePath, union.instancePath)) break;
    const inBranch = error.schemaPath.startsWith(branchesPath);
    if (!inBranch && error.schemaPath.startsWith(parentPath)) break;
    indexes.push(index);
  }
  return indexes.reverse();
}

/**
 * One message for a union nothing matched: what kinds of value would do when the value is of
 * none of them, else the problems of the branch that came closest.
 */
function describeUnion(
  union: ErrorObject,
  branchErrors: readonly ErrorObject[],
  messages: ReadonlyMap<ErrorObject, string>,
  input: unknown,
  root: JsonSchema,
): string {
  const path = readablePath(union.instancePath, input);
  const subject = path === '' ? 'the input' : `parameter "${path}"`;
  const value: unknown = union.data;
  const branches: unknown[] = Array.isArray(union.schema) ? union.schema : [];
  const fitting: number[] = [];
  branches.forEach((branch, index) => {
    if (isBranch(branch) && matchesShallowly(value, branch, root)) fitting.push(index);
  });
  if (fitting.length === 0) {
    const expected = [...new Set(branches.flatMap((branch) => describeExpected(branch, root)))];
    if (expected.length > 0) {
      return `${subject} must be ${joinAlternatives(expected)}, got ${describeValue(value)}`;
    }
    return `${subject} does not match any of the allowed forms, got ${describeValue(value)}`;
  }
  // Group the branch errors by branch; errors from a compiled `$ref` carry no branch index.
  const branchesPath = `${union.schemaPath}/`;
  const grouped = new Map<number, ErrorObject[]>();
  const unplaced: ErrorObject[] = [];
  for (const error of branchErrors) {
    if (!error.schemaPath.startsWith(branchesPath)) {
      unplaced.push(error);
      continue;
    }
    const branchIndex = Number.parseInt(error.schemaPath.slice(branchesPath.length), 10);
    const group = grouped.get(branchIndex) ?? [];
    group.push(error);
    grouped.set(branchIndex, group);
  }
  let closest: ErrorObject[] | undefined;
  for (const index of fitting) {
    const own = grouped.get(index) ?? [];
    const errorsOfBranch = own.length > 0 ? own : unplaced;
    if (errorsOfBranch.length > 0 && (!closest || errorsOfBranch.length < closest.length)) {
      closest = errorsOfBranch;
    }
  }
  if (!closest) return `${subject} does not match any of the allowed forms`;
  const reasons = [...new Set(closest.map((error) => messages.get(error) ?? ''))]
    .filter((reason) => reason !== '')
    .slice(0, 3);
  return `${subject} does not match any of the allowed forms; closest: ${reasons.join('; ')}`;
}

function isBranch(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** `"celsius"`, `string`, `null`: what one union branch accepts, for the message. */
function describeExpected(branch: unknown, root: JsonSchema): string[] {
  if (!isBranch(branch)) return [];
  if (isSchemaObject(branch)) {
    if (Object.hasOwn(branch, 'const')) return [quote(branch.const)];
    const listed = Object.hasOwn(branch, 'enum') ? branch.enum : undefined;
    if (Array.isArray(listed)) return listed.map(quote);
  }
  return [...typeNames(typeMask(branch, root))];
}

/** Parameters Ajv names in an error's params rather than its path: missing and unexpected ones. */
const NAMED_PARAMETERS = new Map([
  ['required', 'missingProperty'],
  ['dependentRequired', 'missingProperty'],
  ['dependencies', 'missingProperty'],
  ['additionalProperties', 'additionalProperty'],
  ['unevaluatedProperties', 'unevaluatedProperty'],
]);

function escapeSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Ajv's instance path, extended to the parameter a missing or unexpected-parameter error is
 * about, so the path points at the offending (or absent) value as ValidationProblem promises.
 */
function problemPath(error: ErrorObject): string {
  const named = NAMED_PARAMETERS.get(error.keyword);
  const key = named === undefined ? undefined : param(error, named);
  return typeof key === 'string'
    ? `${error.instancePath}/${escapeSegment(key)}`
    : error.instancePath;
}

/** Ajv's errors as problems: union noise folded into one message per union, duplicates dropped. */
function describeErrors(
  errors: readonly ErrorObject[],
  input: unknown,
  root: JsonSchema,
): ValidationProblem[] {
  const messages = new Map<ErrorObject, string>();
  const folded = new Set<ErrorObject>();
  // Errors come in evaluation order, inner unions before outer ones.
  errors.forEach((error, index) => {
    if (!isFailedUnion(error)) {
      messages.set(error, describeError(error, input));
      return;
    }
    const inside = branchErrorIndexes(errors, index).map((branchIndex) => errors[branchIndex]!);
    // What an inner union folded is already summed up in that union's own message.
    const direct = inside.filter(
      (branchError) => !folded.has(branchError) && branchError.keyword !== 'if',
    );
    for (const branchError of inside) folded.add(branchError);
    messages.set(error, describeUnion(error, direct, messages, input, root));
  });
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // `if` only says that `then`/`else` failed; their own errors say how.
    if (folded.has(error) || error.keyword === 'if') continue;
    const message = messages.get(error) ?? describeError(error, input);
    const path = problemPath(error);
    const key = `${path}\u0000${error.keyword}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ path, keyword: error.keyword, message });
  }
  return problems;
}
