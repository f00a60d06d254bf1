// Schema compilers that compile on first use. Fastify otherwise compiles a validator and a
// serializer for every route and status at start-up (hundreds: most of a cold start), though a
// given process may never answer most of them. Same compilers, same results, just later.
// Every validator applies the shared input domain (input-domain.ts) before Ajv.

import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from 'fastify';
import { normalize, refResolver, textErrors } from './input-domain.ts';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = (externalSchemas: unknown, options: unknown) => FastifySchemaCompiler<unknown>;
type SerializerFactory = (externalSchemas: unknown, options: unknown) => FastifySerializerCompiler<unknown>;

/**
 * A route schema without its `$id`s. In Nubis an `$id` only names a shape for the OpenAPI
 * document (`#/components/schemas/Server`); nothing refers to it. Ajv refuses a schema that
 * holds the same `$id` twice (a body with several `IdOrUuid` fields), so compilers get none.
 */
export function withoutIds<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutIds) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    if (key !== '$id' || typeof value !== 'string') copy[key] = withoutIds(value);
  return copy as T;
}

const compiledWithoutIds = <R extends { schema: unknown }>(route: R): R => ({
  ...route,
  schema: withoutIds(route.schema),
});

interface Validate {
  (data: unknown): unknown;
  errors?: unknown;
}

export function lazyValidatorFactory(): NonNullable<CompilersFactory['buildValidator']> {
  const eager = AjvCompiler() as unknown as ValidatorFactory;
  const factory: ValidatorFactory = (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    const shared = (externalSchemas ?? {}) as Record<string, Record<string, unknown>>;
    return (route) => {
      let validate: Validate | undefined;
      const schema = route.schema as Record<string, unknown>;
      const resolve = refResolver(schema, shared);
      // The legacy API reads liberally (its form bodies are text anyway); the others take a
      // string field's value as a string only.
      const options = { numbersAsText: (route as { url?: string }).url?.startsWith('/v1/') === true };
      // Fastify reads a failed validation's details from the function's own `errors`. The input
      // domain (input-domain.ts) runs first: its conversions, then its text check beside Ajv's.
      const lazy: Validate = (data) => {
        validate ??= compile(compiledWithoutIds(route)) as Validate;
        const input = normalize(schema, data, resolve, options);
        const result = validate(input);
        const refused = textErrors(input);
        if (refused.length === 0) {
          lazy.errors = validate.errors;
          return result;
        }
        lazy.errors = [...refused, ...((result ? [] : validate.errors) as unknown[])];
        return false;
      };
      return lazy as ReturnType<FastifySchemaCompiler<unknown>>;
    };
  };
  return factory as unknown as NonNullable<CompilersFactory['buildValidator']>;
}

export function lazySerializerFactory(): NonNullable<CompilersFactory['buildSerializer']> {
  const eager = (SerializerSelector as unknown as () => SerializerFactory)();
  const factory: SerializerFactory = (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => {
        serialize ??= compile(compiledWithoutIds(route));
        return serialize(data);
      };
    };
  };
  return factory as unknown as NonNullable<CompilersFactory['buildSerializer']>;
}
