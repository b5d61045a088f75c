/**
 * Compiles and renders a Hugging Face chat template with `@huggingface/jinja`, plus what real
 * templates use that it lacks (Python's jinja2 has them; see jinja-builtins.ts): the `format`,
 * `min`, `max`, `sum`, `round`, `select`, `reject` filters, `%` and `"{}".format(…)`, string, list
 * and dict methods, integer dict keys, `~` with an undefined side, a full `strftime_now`, and
 * Python's printing of `None`/`True`/`False`.
 *
 * The library takes no custom filters, so the template's syntax tree is rewritten once after
 * parsing: such a filter, a `%` or `~` operation, such a method call, an item lookup and each
 * `{{ … }}` output becomes a call of a global jinja-builtins.ts supplies. Nothing is evaluated
 * as code: the globals are plain functions over the library's runtime values.
 */
import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import {
  COMPARE_GLOBAL,
  CONCAT_GLOBAL,
  FILTER_GLOBAL,
  FILTERS,
  IN_GLOBAL,
  ITEM_GLOBAL,
  ITERABLE_GLOBAL,
  installGlobals,
  METHOD_GLOBAL,
  METHODS,
  OUTPUT_GLOBAL,
  PERCENT_GLOBAL,
  TEST_GLOBAL,
  TESTS,
  TIMES_GLOBAL,
} from './jinja-builtins.ts';
import { ChatTemplateRaisedError, ChatTemplateRenderError } from './jinja-errors.ts';

export { ChatTemplateRaisedError, ChatTemplateRenderError } from './jinja-errors.ts';
export { strftime } from './python-format.ts';

export interface RenderContext {
  readonly [name: string]: unknown;
}

export interface JinjaRenderOptions {
  /** The clock `strftime_now` reads. Default: now. */
  readonly now?: Date;
}

/** A parsed chat template, rendered as often as needed. */
export interface CompiledChatTemplate {
  render(context: RenderContext, options?: JinjaRenderOptions): string;
}

/** Parses a template once (throws `ChatTemplateRenderError` on a syntax error). */
export function compileChatTemplate(source: string): CompiledChatTemplate {
  let program: ReturnType<typeof parse>;
  try {
    program = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
  } catch (error) {
    throw new ChatTemplateRenderError(
      `the chat template does not parse: ${messageOf(error)}`,
      error,
    );
  }
  rewriteProgram(program);
  return {
    render(context, options = {}) {
      const environment = new Environment();
      installGlobals(environment, options.now ?? new Date());
      for (const [name, value] of Object.entries(context)) environment.set(name, value);
      try {
        return String(new Interpreter(environment).run(program).value);
      } catch (error) {
        if (ChatTemplateRaisedError.isInstance(error)) throw error;
        throw new ChatTemplateRenderError(
          `the chat template does not render: ${messageOf(error)}`,
          error,
        );
      }
    },
  };
}

/** Renders `source` once with `context`. */
export function renderChatTemplate(
  source: string,
  context: RenderContext,
  options?: JinjaRenderOptions,
): string {
  return compileChatTemplate(source).render(context, options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// The syntax-tree rewrite.

type Node = { type: string; [field: string]: unknown };

/** The library's node classes, taken from a parsed sample (they are not exported). */
const kit = (() => {
  const program = parse(tokenize('{{ f("s", 1) }}', {})) as unknown as { body: Node[] };
  const call = program.body[0]!;
  const callee = call.callee as Node;
  const [stringLiteral] = call.args as Node[];
  const CallExpression = call.constructor as new (callee: Node, args: Node[]) => Node;
  const Identifier = callee.constructor as new (value: string) => Node;
  const StringLiteral = stringLiteral!.constructor as new (value: string) => Node;
  return {
    call: (name: string, args: Node[]) => new CallExpression(new Identifier(name), args),
    identifier: (name: string) => new Identifier(name),
    string: (value: string) => new StringLiteral(value),
  };
})();

/** Statement lists whose expression statements are output (`{{ … }}`). */
const BLOCK_FIELDS = new Set(['body', 'alternate', 'defaultBlock']);
const STATEMENT_TYPES = new Set([
  'Program',
  'If',
  'For',
  'Break',
  'Continue',
  'Set',
  'Macro',
  'Comment',
  'CallStatement',
  'FilterStatement',
]);

function rewriteProgram(program: unknown): void {
  rewriteNode(program as Node);
}

/**
 * Rewrites `node`'s children in place, then the node itself. Fields are walked with `for…in` and
 * written only when a child was replaced: a first derivation runs this before the JIT has warmed
 * up, where `Object.entries` and a copy of every list cost more than the rewrite itself.
 */
function rewriteNode(node: Node): Node {
  const fields = node as Record<string, unknown>;
  for (const field in fields) {
    const child = fields[field];
    if (typeof child !== 'object' || child === null) continue;
    if (Array.isArray(child)) {
      const isBlock = node.type !== 'ArrayLiteral' && BLOCK_FIELDS.has(field);
      for (let index = 0; index < child.length; index++) {
        const item: unknown = child[index];
        if (!isNode(item)) continue;
        const rewritten = rewriteNode(item);
        child[index] =
          isBlock && isOutput(rewritten) ? kit.call(OUTPUT_GLOBAL, [rewritten]) : rewritten;
      }
    } else if (child instanceof Map) {
      const entries = [...child].map(([key, value]) => {
        let newKey = isNode(key) ? rewriteNode(key) : key;
        // `{1: "a"}`: the library only takes string keys; Python's jinja looks them up by value.
        if (
          isNode(newKey) &&
          (newKey.type === 'IntegerLiteral' || newKey.type === 'FloatLiteral')
        ) {
          newKey = kit.string(String(newKey.value));
        }
        return [newKey, isNode(value) ? rewriteNode(value) : value] as const;
      });
      child.clear();
      for (const [key, value] of entries) child.set(key, value);
    } else if (field !== 'operator' && isNode(child)) {
      const rewritten = rewriteNode(child);
      if (rewritten !== child) fields[field] = rewritten;
    }
  }
  return rewriteExpression(node);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function isOutput(node: Node): boolean {
  // Raw template text is a string literal: printed as it is.
  return !STATEMENT_TYPES.has(node.type) && node.type !== 'StringLiteral';
}

function rewriteExpression(node: Node): Node {
  switch (node.type) {
    case 'FilterExpression': {
      const filter = node.filter as Node;
      const name =
        filter.type === 'Identifier'
          ? (filter.value as string)
          : ((filter.callee as Node).value as string | undefined);
      if (name === undefined || !FILTERS.has(name)) return node;
      const args = filter.type === 'CallExpression' ? (filter.args as Node[]) : [];
      return kit.call(FILTER_GLOBAL, [kit.string(name), node.operand as Node, ...args]);
    }
    case 'BinaryExpression': {
      const operator = (node.operator as { value: string }).value;
      if (operator === '%')
        return kit.call(PERCENT_GLOBAL, [node.left as Node, node.right as Node]);
      if (operator === '~') return kit.call(CONCAT_GLOBAL, [node.left as Node, node.right as Node]);
      if (operator === '*') return kit.call(TIMES_GLOBAL, [node.left as Node, node.right as Node]);
      if (operator === '<' || operator === '<=' || operator === '>' || operator === '>=') {
        return kit.call(COMPARE_GLOBAL, [
          node.left as Node,
          node.right as Node,
          kit.string(operator),
        ]);
      }
      if (operator === 'in' || operator === 'not in') {
        return kit.call(IN_GLOBAL, [
          node.left as Node,
          node.right as Node,
          operator === 'in' ? kit.identifier('false') : kit.identifier('true'),
        ]);
      }
      return node;
    }
    case 'CallExpression': {
      const callee = node.callee as Node;
      if (callee.type !== 'MemberExpression' || callee.computed) return node;
      const property = callee.property as Node;
      if (property.type !== 'Identifier' || !METHODS.has(property.value as string)) return node;
      return kit.call(METHOD_GLOBAL, [
        callee.object as Node,
        kit.string(property.value as string),
        ...(node.args as Node[]),
      ]);
    }
    case 'MemberExpression': {
      const property = node.property as Node;
      if (!node.computed || property.type === 'SliceExpression') return node;
      return kit.call(ITEM_GLOBAL, [node.object as Node, property]);
    }
    case 'TestExpression': {
      const name = (node.test as Node).value as string;
      if (!TESTS.has(name)) return node;
      return kit.call(TEST_GLOBAL, [
        node.operand as Node,
        kit.string(name),
        kit.identifier(node.negate ? 'true' : 'false'),
      ]);
    }
    case 'For': {
      // `for x in undefined` loops no time in Python's jinja (the library throws). A filtered
      // loop's test stays the library's: its sequence is wrapped instead.
      const iterable = node.iterable as Node;
      if (iterable.type === 'SelectExpression') {
        iterable.lhs = kit.call(ITERABLE_GLOBAL, [iterable.lhs as Node]);
      } else {
        node.iterable = kit.call(ITERABLE_GLOBAL, [iterable]);
      }
      return node;
    }
    default:
      return node;
  }
}
