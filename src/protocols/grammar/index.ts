export { GrammarUnsupportedError } from './grammar-error.ts';
export {
  type EbnfGrammar,
  type GbnfGrammar,
  type GeneratedGrammar,
  GRAMMAR_SYNTAXES,
  type GrammarOptions,
  type GrammarSyntax,
  type GrammarToolChoice,
  grammarFor,
  type JsonSchemaGrammar,
  type StructuralTagGrammar,
} from './grammar-for.ts';
export type { StructuralTag, StructuralTagFormat } from './structural-tag.ts';
