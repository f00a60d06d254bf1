// The generators of openapi-property.test.ts must find faults, not only pass: here they run, with
// the same checks, against a small fake server whose one operation carries a planted fault, and
// must report it and shrink it to its essence. A correct fake passes the same run.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { textErrors } from '../src/http/input-domain.ts';
import {
  operations,
  problemWith,
  type RequestCase,
  requestCases,
  responseValidators,
  send,
} from './support/openapi.ts';

const Body = {
  type: 'object',
  required: ['name', 'count'],
  properties: {
    name: { type: 'string', maxLength: 20 },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    note: { type: 'string' },
  },
};

const doc = {
  openapi: '3.1.0',
  info: { title: 'fake', version: '1' },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
      },
    },
  },
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: Body } } },
        responses: {
          201: {
            description: 'made',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          400: {
            description: 'bad',
            content: { 'application/json': { schema: { type: 'object', required: ['errors'] } } },
          },
        },
      },
    },
  },
};

type Fault = 'none' | 'crash-on-seven' | 'accepts-long-names';

/** The fake: validates as the document says, except where the planted fault says otherwise. */
async function fakeServer(fault: Fault): Promise<{ url: string; server: Server }> {
  const validate = new Ajv({ strict: false }).compile(
    fault === 'accepts-long-names'
      ? { ...Body, properties: { ...Body.properties, name: { type: 'string', maxLength: 30 } } }
      : Body,
  );
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/things') return answer(400, { errors: ['path'] });
      if (!String(request.headers['content-type']).startsWith('application/json'))
        return answer(400, { errors: ['content type'] });
      let body: { name: string; count: number };
      try {
        body = JSON.parse(raw);
      } catch {
        return answer(400, { errors: ['json'] });
      }
      if (!validate(body) || textErrors(body).length) return answer(400, { errors: ['body'] });
      if (fault === 'crash-on-seven' && body.count === 7) return answer(500, { oops: true });
      return answer(201, { id: 1, name: body.name });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function run(fault: Fault, seed: number) {
  const { url, server } = await fakeServer(fault);
  try {
    const [op] = operations(doc);
    assert.ok(op);
    const validator = responseValidators(doc);
    return await fc.check(
      fc.asyncProperty(requestCases({ doc, pools: {} }, op), async (c: RequestCase) => {
        const problem = problemWith(op, c, await send(url, c, null), validator);
        if (problem) throw new Error(problem);
      }),
      { numRuns: 300, seed },
    );
  } finally {
    server.close();
  }
}

describe('the OpenAPI generators find a planted fault', () => {
  it('pass against the fake without a fault', async () => {
    const result = await run('none', 1);
    assert.equal(result.failed, false, String(result.errorInstance));
  });

  it('find a 500 on one value and shrink the request to it', async () => {
    for (const seed of [1, 2, 3]) {
      const result = await run('crash-on-seven', seed);
      assert.equal(result.failed, true, `seed ${seed}: the planted 500 was not found`);
      const [c] = result.counterexample as [RequestCase];
      assert.equal(c.kind, 'valid');
      // Shrunk to its essence: the count that crashes, the shortest name, no optional field.
      assert.deepEqual(JSON.parse(c.body ?? ''), { name: '', count: 7 });
      assert.match(String(result.errorInstance), /answered 500/);
    }
  });

  it('find invalid input accepted (a name over its maximum length) and shrink it to the shortest', async () => {
    const result = await run('accepts-long-names', 4);
    assert.equal(result.failed, true, 'the accepted invalid name was not found');
    const [c] = result.counterexample as [RequestCase];
    assert.equal(c.what, 'name');
    assert.equal(JSON.parse(c.body ?? '').name, 'a'.repeat(21));
    assert.match(String(result.errorInstance), /accepted an invalid request/);
  });
});
