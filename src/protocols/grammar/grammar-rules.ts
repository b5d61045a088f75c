/**
 * A set of named grammar rules being built. A body defined twice gets one rule, whatever name it
 * was asked under: tools that share an argument schema (or a part of one) share its rules, which
 * is what keeps a grammar for hundreds of tools small.
 */
import { ruleName } from './gbnf-text.ts';

export class GrammarRules {
  private readonly bodies = new Map<string, string>();
  private readonly names = new Map<string, string>();
  private readonly order: string[] = [];

  /** The name of a rule with this body: an existing one, or a new one named after `hint`. */
  define(hint: string, body: string): string {
    const known = this.names.get(body);
    if (known !== undefined) return known;
    const name = this.freeName(hint);
    this.bodies.set(name, body);
    this.names.set(body, name);
    this.order.push(name);
    return name;
  }

  /**
   * A rule whose body refers to itself (a recursive JSON value): named first, its body given by
   * `build(name)`. Defined once per `key`.
   */
  defineRecursive(key: string, build: (name: string) => string, hint = key): string {
    const known = this.names.get(`\u0000${key}`);
    if (known !== undefined) return known;
    const name = this.freeName(hint);
    this.names.set(`\u0000${key}`, name);
    this.order.push(name);
    this.bodies.set(name, build(name));
    return name;
  }

  /** A free name for a rule defined later with `defineNamed` (for rules that refer to each other). */
  reserve(hint: string): string {
    return this.freeName(hint);
  }

  /** Defines the rule `reserve` named. */
  defineNamed(name: string, body: string): void {
    if (this.bodies.get(name) !== '') throw new TypeError(`rule ${name} was not reserved`);
    this.bodies.set(name, body);
    this.order.push(name);
  }

  private freeName(hint: string): string {
    const base = ruleName(hint);
    let name = base;
    for (let suffix = 2; this.bodies.has(name) || name === 'root'; suffix++)
      name = `${base}-${suffix}`;
    // Reserve it at once, so a rule defined while building this one cannot take it.
    this.bodies.set(name, '');
    return name;
  }

  /** How many rules there are. */
  get size(): number {
    return this.order.length;
  }

  /** The grammar text: `root ::= rootBody`, then every rule in the order it was defined. */
  render(rootBody: string): string {
    const lines = [`root ::= ${rootBody}`];
    for (const name of this.order) lines.push(`${name} ::= ${this.bodies.get(name)}`);
    return `${lines.join('\n')}\n`;
  }
}
