/**
 * Checks a FormatSpec read from JSON (a `--format-file`, a derived spec) before anything is built
 * from it: every field by type, every literal non-empty and bounded, no unknown key (a typo would
 * otherwise be silently ignored). The first problem found is thrown with its path
 * (`calls[1].open`).
 */
import { ToolwireError } from '../../core/errors.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { headerModeProblem } from '../codecs/harmony/header-spec.ts';
import { RAW_CODE_FIELDS, rawCodeProblem } from '../codecs/raw-code/raw-code-spec.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import { FORMAT_SPEC_VERSION, type FormatSpec } from './types.ts';

/** A format that cannot be built; the message names the field and what is wrong with it. */
export class FormatSpecError extends ToolwireError {
  /** Where the problem is: `calls[1].open`, or `` for the spec itself. */
  readonly path: string;

  constructor(path: string, problem: string) {
    super(
      'invalid-format',
      path === '' ? `format spec: ${problem}` : `format spec ${path}: ${problem}`,
    );
    this.path = path;
  }
}

/** Longest literal (an opener, a closer, a marker). */
const MAX_LITERAL = 256;
/** Longest template (a prompt, a call or result template). */
const MAX_TEMPLATE = 64 * 1024;
/** Most call forms and most entries of any list. */
const MAX_ENTRIES = 128;

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

type Fields = Record<string, unknown>;

class Checker {
  private readonly fields: Fields;
  private readonly path: string;

  constructor(fields: Fields, path: string) {
    this.fields = fields;
    this.path = path;
  }

  at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  fail(key: string, problem: string): never {
    throw new FormatSpecError(this.at(key), problem);
  }

  only(keys: readonly string[]): void {
    for (const key of Object.keys(this.fields)) {
      if (!keys.includes(key)) {
        throw new FormatSpecError(
          this.at(key),
          `unknown field (expected one of ${keys.join(', ')})`,
        );
      }
    }
  }

  has(key: string): boolean {
    return this.fields[key] !== undefined;
  }

  literal(key: string, required = false): void {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, 'missing (a non-empty string)');
      return;
    }
    if (typeof value !== 'string' || value.length === 0)
      this.fail(key, 'must be a non-empty string');
    if (value.length > MAX_LITERAL) this.fail(key, `longer than ${MAX_LITERAL} characters`);
  }

  text(key: string, required = false, max = MAX_TEMPLATE): void {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, 'missing (a string)');
      return;
    }
    if (typeof value !== 'string') this.fail(key, 'must be a string');
    if (value.length > max) this.fail(key, `longer than ${max} characters`);
  }

  boolean(key: string): void {
    const value = this.fields[key];
    if (value !== undefined && typeof value !== 'boolean') this.fail(key, 'must be true or false');
  }

  oneOf(key: string, choices: readonly string[], required = false): void {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, `missing (one of ${choices.join(', ')})`);
      return;
    }
    if (typeof value !== 'string' || !choices.includes(value)) {
      this.fail(key, `must be one of ${choices.join(', ')}`);
    }
  }

  literals(key: string, required = false): void {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, 'missing (a list of non-empty strings)');
      return;
    }
    if (!Array.isArray(value) || value.length > MAX_ENTRIES) {
      this.fail(key, `must be a list of at most ${MAX_ENTRIES} non-empty strings`);
    }
    value.forEach((item, index) => {
      if (typeof item !== 'string' || item.length === 0 || item.length > MAX_LITERAL) {
        this.fail(
          `${key}[${index}]`,
          `must be a non-empty string of at most ${MAX_LITERAL} characters`,
        );
      }
    });
  }

  object(key: string, required = false): Checker | undefined {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, 'missing (an object)');
      return undefined;
    }
    if (!isFields(value)) this.fail(key, 'must be an object');
    return new Checker(value, this.at(key));
  }

  list(key: string, required = false): Checker[] {
    const value = this.fields[key];
    if (value === undefined) {
      if (required) this.fail(key, 'missing (a list)');
      return [];
    }
    if (!Array.isArray(value) || value.length > MAX_ENTRIES) {
      this.fail(key, `must be a list of at most ${MAX_ENTRIES} objects`);
    }
    return value.map((item, index) => {
      if (!isFields(item)) this.fail(`${key}[${index}]`, 'must be an object');
      return new Checker(item, `${this.at(key)}[${index}]`);
    });
  }

  value(key: string): unknown {
    return this.fields[key];
  }
}

function hasWhiteSpace(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  for (let index = 0; index < value.length; index++) {
    if (isWhiteSpace(value.charCodeAt(index))) return true;
  }
  return false;
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const FORM_BASE = [
  'codec',
  'open',
  'close',
  'certainty',
  'inReasoning',
  'perTool',
  'starts',
  'framingBefore',
];

/** Every field of `ParameterTagsSyntax` (a typo in a syntax is refused like any other). */
const TAGGED_SYNTAX_KEYS: readonly (keyof ParameterTagsSyntax)[] = [
  'callOpen',
  'callClose',
  'parameterOpen',
  'keyClose',
  'valueOpen',
  'parameterClose',
  'layout',
  'nearMisses',
  'decodeEntities',
  'headerClose',
  'nameAttribute',
  'keyAttribute',
  'typeAttribute',
  'rawTypes',
  'nameAsText',
  'nameClose',
  'suffixedTags',
  'cdata',
  'spaceMarkers',
  'betweenCalls',
  'nameBeforeCall',
  'nextBlock',
  'elementParameters',
  'argumentsOpen',
  'argumentsClose',
  'blockHeaderClose',
  'blockOpenHoldsCall',
  'repeatedNames',
];

function checkForm(form: Checker): void {
  form.oneOf('codec', ['json', 'tagged', 'python', 'dialect', 'raw-code'], true);
  form.literal('open', true);
  form.literal('close');
  form.oneOf('certainty', ['explicit', 'speculative']);
  form.boolean('inReasoning');
  form.boolean('perTool');
  form.literal('starts');
  form.literal('framingBefore');
  for (const key of ['starts', 'framingBefore']) {
    if (hasWhiteSpace(form.value(key))) {
      form.fail(key, 'must hold no white space (white space after the opener is skipped)');
    }
  }
  if (form.value('perTool') === true) {
    const open = String(form.value('open'));
    if (!open.includes('{name}') && !open.includes('{name_json}')) {
      form.fail('open', 'must hold {name} or {name_json}: the form is opened per declared tool');
    }
  }
  switch (form.value('codec')) {
    case 'json': {
      form.only([
        ...FORM_BASE,
        'nameKeys',
        'argumentKeys',
        'nameAsKey',
        'nameHeader',
        'openHoldsJson',
        'separator',
        'perLine',
        'fenced',
        'languageTag',
        'strict',
        'bareArrays',
        'argumentsAsString',
        'fenceHoldsForms',
        'strayClose',
        'argumentsOnly',
        'holdCalls',
      ]);
      form.boolean('argumentsOnly');
      form.boolean('holdCalls');
      if (form.value('argumentsOnly') === true && form.value('perTool') !== true) {
        form.fail('argumentsOnly', 'needs `perTool` (the opener names the tool)');
      }
      form.literals('nameKeys');
      form.literals('argumentKeys');
      form.boolean('nameAsKey');
      const header = form.object('nameHeader');
      if (header) {
        header.only(['end', 'namePrefixes', 'nameEnds', 'nameQuoted', 'nameAttribute']);
        header.boolean('nameQuoted');
        header.literal('nameAttribute');
        header.literal('end', true);
        header.literals('namePrefixes');
        header.oneOf('nameEnds', ['word', 'index']);
      }
      form.boolean('argumentsAsString');
      form.boolean('fenceHoldsForms');
      form.literal('strayClose');
      if (form.value('argumentsAsString') === true && (!header || !form.has('close'))) {
        form.fail(
          'argumentsAsString',
          'needs `nameHeader` and `close` (the string is the arguments of a named call)',
        );
      }
      form.literal('openHoldsJson');
      const holds = form.value('openHoldsJson');
      if (typeof holds === 'string' && !String(form.value('open')).endsWith(holds)) {
        form.fail('openHoldsJson', 'must be the end of `open` (the JSON the opener already took)');
      }
      form.literal('separator');
      form.boolean('perLine');
      form.boolean('fenced');
      form.boolean('languageTag');
      form.boolean('strict');
      form.literals('bareArrays');
      return;
    }
    case 'tagged': {
      form.only([...FORM_BASE, 'syntax', 'openConsumed', 'strayClose']);
      form.text('openConsumed', false, MAX_LITERAL);
      form.literal('strayClose');
      const syntax = form.object('syntax', true) as Checker;
      syntax.text('callOpen', true, MAX_LITERAL);
      syntax.text('callClose', true, MAX_LITERAL);
      syntax.literal('parameterOpen', true);
      syntax.literal('parameterClose', true);
      syntax.oneOf('layout', ['block', 'inline', 'exact'], true);
      syntax.only(TAGGED_SYNTAX_KEYS);
      // The tagged codec's other settings are flags and literals of its own (ParameterTagsSyntax).
      for (const key of Object.keys(form.value('syntax') as Fields)) {
        const value = (form.value('syntax') as Fields)[key];
        const plain =
          typeof value === 'string'
            ? value.length <= MAX_LITERAL
            : typeof value === 'boolean' ||
              (Array.isArray(value) &&
                value.length <= MAX_ENTRIES &&
                value.every((item) => typeof item === 'string' && item.length <= MAX_LITERAL));
        if (!plain) syntax.fail(key, 'must be a string, true or false, or a list of strings');
      }
      return;
    }
    case 'python': {
      form.only([
        ...FORM_BASE,
        'listOpened',
        'single',
        'lines',
        'jsonFallback',
        'nameSuffix',
        'separator',
        'rawCode',
        'argumentKeys',
      ]);
      form.literals('argumentKeys');
      form.boolean('listOpened');
      form.boolean('single');
      form.boolean('lines');
      form.boolean('jsonFallback');
      if (form.value('jsonFallback') === true && !form.has('close')) {
        form.fail('jsonFallback', 'needs `close` (where the JSON calls end)');
      }
      form.literal('nameSuffix');
      form.literal('separator');
      const rawCode = form.object('rawCode');
      if (rawCode) checkRawCode(rawCode);
      return;
    }
    case 'raw-code':
      checkRawCode(form, FORM_BASE);
      return;
    case 'dialect': {
      form.only([
        ...FORM_BASE,
        'closeAlternatives',
        'namePrefix',
        'stringDelimiters',
        'quotedStrings',
        'wholeOutput',
        'parenthesisCalls',
      ]);
      form.literals('closeAlternatives');
      form.literal('namePrefix');
      form.literals('stringDelimiters', true);
      if ((form.value('stringDelimiters') as unknown[]).length !== 2) {
        form.fail('stringDelimiters', 'must be two strings: the opening and the closing delimiter');
      }
      form.boolean('quotedStrings');
      form.boolean('wholeOutput');
      form.boolean('parenthesisCalls');
      return;
    }
  }
}

/**
 * Forms that share an opener and are told apart by their first character (`starts`) are one
 * opener: they must agree on whether it is read inside reasoning.
 */
function checkSharedOpeners(forms: readonly Fields[], spec: Checker): void {
  const byOpen = new Map<unknown, number>();
  forms.forEach((form, index) => {
    if (form.perTool === true) return;
    const first = byOpen.get(form.open);
    if (first === undefined) {
      byOpen.set(form.open, index);
      return;
    }
    const other = forms[first]!;
    const chosen =
      form.starts !== undefined ||
      other.starts !== undefined ||
      form.framingBefore !== undefined ||
      other.framingBefore !== undefined;
    if (chosen && (form.inReasoning === true) !== (other.inReasoning === true)) {
      spec.fail(
        `calls[${index}].inReasoning`,
        `must be the same as calls[${first}]'s: the forms share their opener`,
      );
    }
  });
}

/** A raw-code spec's fields (`RawCodeSpec`), beside `others` of the object holding them. */
function checkRawCode(fields: Checker, others: readonly string[] = []): void {
  fields.only([...others, ...RAW_CODE_FIELDS]);
  const problem = rawCodeProblem((key) => fields.value(key));
  if (problem) fields.fail(problem.field, problem.problem);
}

function checkPair(pair: Checker | undefined): void {
  if (!pair) return;
  pair.only(['open', 'close']);
  pair.text('open', true, MAX_LITERAL);
  pair.text('close', true, MAX_LITERAL);
}

/**
 * `json` as a FormatSpec, checked field by field; throws `FormatSpecError` (kind
 * `invalid-format`) naming the first bad field.
 */
export function readFormatSpec(json: unknown): FormatSpec {
  if (!isFields(json)) throw new FormatSpecError('', 'must be a JSON object');
  const spec = new Checker(json, '');
  spec.only([
    'spec',
    'name',
    'aliases',
    'families',
    'models',
    'example',
    'reasoning',
    'startInReasoning',
    'markup',
    'markupInReasoning',
    'header',
    'calls',
    'write',
    'results',
    'prompt',
    'actionsPerTurn',
  ]);
  if (json.spec !== FORMAT_SPEC_VERSION) {
    spec.fail('spec', `must be ${FORMAT_SPEC_VERSION} (the version of the spec's shape)`);
  }
  if (typeof json.name !== 'string' || !NAME.test(json.name)) {
    spec.fail('name', 'must be 1-64 lower-case letters, digits, `.`, `_` or `-`');
  }
  spec.literals('aliases');
  spec.text('families', false, 1024);
  spec.literals('models');
  spec.text('example');
  for (const tag of spec.list('reasoning')) {
    tag.only(['open', 'close', 'closeAlternatives', 'suffixed']);
    tag.literal('open', true);
    tag.literal('close', true);
    tag.literals('closeAlternatives');
    tag.boolean('suffixed');
    if (tag.value('suffixed') === true) {
      // The suffix and its `>` follow the literals: `<think`, not `<think>`.
      for (const key of ['open', 'close']) {
        if ((tag.value(key) as string).endsWith('>')) {
          tag.fail(key, 'must not end in `>` in a suffixed tag (the suffix and `>` follow it)');
        }
      }
    }
  }
  spec.boolean('startInReasoning');
  spec.literals('markup');
  spec.boolean('markupInReasoning');
  const forms = spec.list('calls', true);
  if (forms.length === 0) spec.fail('calls', 'must hold at least one call form');
  for (const form of forms) checkForm(form);
  checkSharedOpeners(json.calls as Fields[], spec);
  if (json.header !== undefined) {
    const found = headerModeProblem(json.header, json.calls as readonly { codec: string }[]);
    if (found) throw new FormatSpecError(found.path, found.problem);
  }
  const write = spec.object('write', true) as Checker;
  write.only(['form', 'section', 'call', 'join', 'empty', 'parameter']);
  const formIndex = write.value('form');
  if (
    formIndex !== undefined &&
    (typeof formIndex !== 'number' ||
      !Number.isInteger(formIndex) ||
      formIndex < 0 ||
      formIndex >= forms.length)
  ) {
    write.fail('form', `must be the index of a call form (0 to ${forms.length - 1})`);
  }
  checkPair(write.object('section'));
  write.text('call', true);
  write.text('join');
  write.text('empty');
  write.text('parameter');
  const written = (json.calls as Fields[])[typeof formIndex === 'number' ? formIndex : 0];
  if (written?.codec === 'tagged' && !write.has('parameter')) {
    write.fail('parameter', 'missing: a tagged form is written one parameter at a time');
  }
  const results = spec.object('results', true) as Checker;
  results.only(['section', 'each', 'join', 'output', 'errorPrefix']);
  checkPair(results.object('section'));
  results.text('each', true);
  results.text('join');
  results.oneOf('output', ['text', 'json']);
  results.text('errorPrefix', false, MAX_LITERAL);
  const prompt = spec.object('prompt');
  if (prompt) {
    prompt.only(['text']);
    prompt.text('text', true);
  }
  spec.oneOf('actionsPerTurn', ['one', 'all']);
  return json as unknown as FormatSpec;
}
