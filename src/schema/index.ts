export { checkSchemaPatterns } from './check-patterns.ts';
export { coerceBySchema, coerceText } from './coerce.ts';
export { compileSchemaPattern, type SchemaPattern, UnsupportedPatternError } from './pattern.ts';
export {
  itemSchema,
  type JsonType,
  propertySchema,
  resolveSchema,
  type SchemaObject,
  schemaTypes,
} from './resolve.ts';
export { type TextProbe, type TextReading, textReading } from './text-value.ts';
export { createValidator, type Validator } from './validate.ts';
export { createValuePolicy } from './value-policy.ts';
