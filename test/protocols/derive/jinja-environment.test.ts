/**
 * What the chat-template renderer adds to @huggingface/jinja (each construct fails or renders
 * wrongly in the library alone), as Python's jinja2 renders it.
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import {
  ChatTemplateRaisedError,
  ChatTemplateRenderError,
  compileChatTemplate,
  renderChatTemplate,
  strftime,
} from '../../../src/protocols/derive/jinja-environment.ts';

const NOW = new Date(2024, 6, 26, 9, 5, 7);
const render = (source: string, context: Record<string, unknown> = {}) =>
  renderChatTemplate(source, context, { now: NOW });

/** The library alone refuses (or misrenders) the construct: the addition is needed. */
function libraryAlone(source: string, context: Record<string, unknown> = {}): string {
  try {
    return new Template(source).render(context);
  } catch (error) {
    return `throws: ${(error as Error).message}`;
  }
}

describe('the chat-template renderer', () => {
  it('formats with "%s"|format(…), as the pythonic templates print argument values', () => {
    const source = '{{ "%s" | format(value) }}|{{ "%s=%d" | format("a", 3) }}';
    expect(libraryAlone(source, { value: 'Oslo' })).toMatch(/^throws/);
    expect(render(source, { value: 'Oslo' })).toBe('Oslo|a=3');
    expect(render('{{ "%s" | format(value) }}', { value: 3 })).toBe('3');
    expect(render('{{ "%s" | format(value) }}', { value: true })).toBe('True');
  });

  it('formats with the % operator: %s %r %d %f %x %%, width, precision and %(key)s', () => {
    expect(libraryAlone('{{ "%s!" % name }}', { name: 'x' })).toMatch(/^throws/);
    expect(render('{{ "%s!" % name }}', { name: 'x' })).toBe('x!');
    expect(render('{{ "%s and %r" % ("a", "b") }}')).toBe("a and 'b'");
    expect(render('{{ "%05.2f|%-4d|%x|100%%" % (3.14159, 7, 255) }}')).toBe('03.14|7   |ff|100%');
    expect(render('{{ "%(city)s" % {"city": "Oslo"} }}')).toBe('Oslo');
    // Numbers keep Python's modulo (the sign of the divisor).
    expect(render('{{ 7 % 3 }} {{ -7 % 3 }}')).toBe('1 2');
  });

  it('formats with str.format: {}, {0}, {name}, {{ }}', () => {
    expect(libraryAlone('{{ "{}!".format(1) }}')).toMatch(/^throws/);
    expect(render('{{ "{} and {name} {{x}}".format(1, name="b") }}')).toBe('1 and b {x}');
    expect(render('{{ "{1}{0}".format("a", "b") }}')).toBe('ba');
  });

  it('has the min, max, sum and round filters', () => {
    for (const filter of ['min', 'max', 'sum']) {
      expect(libraryAlone(`{{ [3, 1, 2] | ${filter} }}`)).toMatch(/^throws/);
    }
    expect(render('{{ [3, 1, 2] | min }} {{ [3, 1, 2] | max }} {{ [1, 2, 3] | sum }}')).toBe(
      '1 3 6',
    );
    expect(render('{{ items | max(attribute="n") }}', { items: [{ n: 1 }, { n: 5 }] })).toBe(
      '{"n": 5}',
    );
    expect(render('{{ items | sum(attribute="n") }}', { items: [{ n: 1 }, { n: 5 }] })).toBe('6');
    expect(libraryAlone('{{ 2.567 | round(2) }}')).toMatch(/^throws/);
    expect(render('{{ 2.567 | round(2) }} {{ 2.5 | round }} {{ 2.1 | round(0, "ceil") }}')).toBe(
      '2.57 3.0 3.0',
    );
  });

  it('has the select and reject filters with a test', () => {
    expect(render('{{ [1, 2, 3, 4] | select("odd") | list }}')).toBe('[1, 3]');
    expect(render('{{ [1, 2, 3, 4] | reject("odd") | list }}')).toBe('[2, 4]');
  });

  it('writes |string of a dict, None and booleans as Python does', () => {
    expect(libraryAlone('{{ {"a": 1} | string }}')).toMatch(/^throws/);
    expect(render('{{ {"a": 1, "b": none} | string }}')).toBe("{'a': 1, 'b': None}");
    expect(libraryAlone('{{ None }}|{{ True }}')).toBe('|true');
    expect(render('{{ None }}|{{ True }}|{{ flag }}', { flag: false })).toBe('None|True|False');
  });

  it('has the string methods find, count, index, join, strip(chars), isdigit and more', () => {
    expect(libraryAlone('{{ "abc".find("c") }}')).toMatch(/^throws/);
    expect(render('{{ "abc".find("c") }} {{ "abc".find("z") }} {{ "aXbXc".count("X") }}')).toBe(
      '2 -1 2',
    );
    expect(
      render('{{ ", ".join(["a", "b"]) }}|{{ "xxhixx".strip("x") }}|{{ "  hi ".strip() }}'),
    ).toBe('a, b|hi|hi');
    expect(render('{{ "12".isdigit() }} {{ "1a".isdigit() }} {{ "ab".isalpha() }}')).toBe(
      'True False True',
    );
    expect(render('{{ "v1.py".removesuffix(".py") }} {{ "a\nb".splitlines() | length }}')).toBe(
      'v1 2',
    );
  });

  it('has the list methods append, extend, pop, index and count, which change the list', () => {
    expect(libraryAlone('{% set l = [] %}{% set _ = l.append(1) %}{{ l }}')).toMatch(/^throws/);
    expect(
      render(
        '{% set l = [] %}{% set _ = l.append(1) %}{% set _ = l.extend([2, 3]) %}{{ l }} {{ l.pop() }} {{ l }} {{ l.index(2) }} {{ l.count(1) }}',
      ),
    ).toBe('[1, 2, 3] 3 [1, 2] 1 1');
  });

  it('has the dict methods update, setdefault and pop', () => {
    expect(libraryAlone('{% set d = {"a": 1} %}{% set _ = d.update({"b": 2}) %}{{ d }}')).toMatch(
      /^throws/,
    );
    expect(
      render(
        '{% set d = {"a": 1} %}{% set _ = d.update({"b": 2}) %}{{ d }} {{ d.setdefault("c", 3) }} {{ d.pop("a") }} {{ d }}',
      ),
    ).toBe('{"a": 1, "b": 2} 3 1 {"b": 2, "c": 3}');
  });

  it('takes integer dict keys and looks them up', () => {
    expect(libraryAlone('{% set m = {1: "one"} %}{{ m[1] }}')).toMatch(/^throws/);
    expect(render('{% set m = {1: "one", 2: "two"} %}{{ m[1] }} {{ m[n] }}', { n: 2 })).toBe(
      'one two',
    );
    // Lists, strings and string keys read as before.
    expect(
      render('{{ [1, 2, 3][-1] }} {{ "abc"[0] }} {{ d["k"] }} {{ d.k }}', { d: { k: 'v' } }),
    ).toBe('3 a v v');
  });

  it('repeats a string or a list with * (indentation in TypeScript-style tool declarations)', () => {
    expect(libraryAlone('{{ " " * 2 }}')).toMatch(/^throws/);
    expect(
      render('[{{ " " * 2 }}]{{ "ab" * 2 }}{{ 3 * "x" }} {{ [1] * 3 }} {{ 2 * 3 }} {{ 2 * 1.5 }}'),
    ).toBe('[  ]ababxxx [1, 1, 1] 6 3.0');
  });

  it('tests none in a list as false, as Python does (a schema without format)', () => {
    expect(libraryAlone('{{ none in ["a"] }}')).toMatch(/^throws/);
    expect(
      render('{{ none in ["a"] }} {{ none not in ["a"] }} {{ "a" in ["a"] }} {{ "b" in "abc" }}'),
    ).toBe('False True True True');
    expect(
      render('{{ "k" in d }} {{ "z" in d }} {{ 1 in [1, 2] }} {{ "x" in missing }}', {
        d: { k: 1 },
      }),
    ).toBe('True False True False');
  });

  it('loops no time over an undefined value (a user message has no tool_calls)', () => {
    expect(libraryAlone('{% for c in m.tool_calls %}x{% endfor %}', { m: {} })).toMatch(/^throws/);
    expect(render('[{% for c in m.tool_calls %}x{% endfor %}]', { m: {} })).toBe('[]');
    expect(render('{% for n in [1, 2, 3] if n > 1 %}{{ n }}{% endfor %}')).toBe('23');
  });

  it('compares strings, and integer dict keys with numbers (Seed-OSS: budget <= k)', () => {
    expect(libraryAlone('{{ "a" < "b" }}')).toMatch(/^throws/);
    expect(render('{{ "a" < "b" }} {{ 2 >= 3 }} {{ 1.5 > 1 }}')).toBe('True False True');
    expect(
      render(
        '{% set d = {0: 0, 512: 128} %}{% for k, v in d | dictsort %}{% if -1 <= k %}{{ v }};{% endif %}{% endfor %}',
      ),
    ).toBe('0;128;');
  });

  it('concatenates an undefined value with ~ as an empty string', () => {
    expect(libraryAlone('{{ missing ~ "x" }}')).toMatch(/^throws/);
    expect(render('{{ missing ~ "x" ~ 1 }}')).toBe('x1');
  });

  it('knows every strftime_now directive (the library returns %A and %S as they are)', () => {
    expect(render('{{ strftime_now("%A %a %d %B %b %Y %H:%M:%S %j %p %I %y %-d") }}')).toBe(
      'Friday Fri 26 July Jul 2024 09:05:07 208 AM 09 24 26',
    );
    expect(strftime(new Date(2024, 0, 1, 15, 0, 0), '%A %I %p %%')).toBe('Monday 03 PM %');
  });

  it('tests is float', () => {
    expect(libraryAlone('{{ 1.5 is float }}')).toMatch(/^throws/);
    expect(render('{{ 1.5 is float }} {{ 1 is float }}')).toBe('True False');
  });

  it('supplies its tests inside loops and macros too (the library gives each scope its own)', () => {
    expect(
      render(
        '{% macro f(x) %}{{ x is float }}{% endmacro %}{% for v in [1.5, 2] %}{{ v is float }},{{ f(v) }};{% endfor %}',
      ),
    ).toBe('True,True;False,False;');
    expect(render('{% for d in [{"a": 1}] %}{{ d is not iterable }}{% endfor %}')).toBe('False');
  });

  it('tests a dict as iterable, as Python does', () => {
    expect(libraryAlone('{{ d is iterable }}', { d: { a: 1 } })).toBe('false');
    expect(
      render(
        '{{ d is iterable }} {{ "s" is iterable }} {{ [1] is iterable }} {{ 3 is iterable }}',
        { d: { a: 1 } },
      ),
    ).toBe('True True True False');
  });

  it('unpacks tuples in for and set', () => {
    expect(
      render(
        '{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% set a, b = [5, 6] %}{{ a }}{{ b }}',
        {
          d: { x: 1, y: 2 },
        },
      ),
    ).toBe('x=1;y=2;56');
    expect(render('{% for a, b in zip([1, 2], ["x", "y"]) %}{{ a }}{{ b }}{% endfor %}')).toBe(
      '1x2y',
    );
  });

  it("reports a template's raise_exception in its words, and other failures as invalid-format", () => {
    let raised: unknown;
    try {
      render('{{ raise_exception("Only one call at a time!") }}');
    } catch (error) {
      raised = error;
    }
    expect(ChatTemplateRaisedError.isInstance(raised)).toBe(true);
    expect((raised as ChatTemplateRaisedError).templateMessage).toBe('Only one call at a time!');
    expect(isErrorOfKind(raised, 'invalid-format')).toBe(true);
    expect(() => compileChatTemplate('{% if %}')).toThrow(ChatTemplateRenderError);
    expect(() => render('{{ missing + "x" }}')).toThrow(/does not render/);
  });

  it('refuses a range() of more than 100,000 numbers, or a * of more than a million, instead of filling memory', () => {
    expect(render('{{ range(3) | list }} {{ range(1, 7, 2) | list }}')).toBe('[0, 1, 2] [1, 3, 5]');
    expect(() => render('{% for i in range(10 ** 9) %}{% endfor %}')).toThrow(
      /range\(\) of more than/,
    );
    expect(() => render('{{ "ab" * 10 ** 9 }}')).toThrow(/makes more than/);
  });

  it('keeps each render to its own globals (a list appended in one render is fresh in the next)', () => {
    const template = compileChatTemplate('{% set l = [] %}{% set _ = l.append(x) %}{{ l }}');
    expect(template.render({ x: 1 })).toBe('[1]');
    expect(template.render({ x: 2 })).toBe('[2]');
  });
});
