// The operator API's saved states: export and import the whole state as one document, and
// named saves kept on the server for fast resets to a fixture. See src/state/state.service.ts.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  exportState,
  importState,
  listSavedStates,
  loadState,
  removeSavedState,
  type SavedState as DomainSavedState,
  saveState,
  stateFormat,
  stateVersion,
} from '../../state/state.service.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { isoSeconds, lastInstantMs } from '../../platform/clock.ts';
import { adminErrors, tags } from './format.ts';

/** A state document holds every row: far above the API's usual body limit, and only the operator may send one. */
const documentBodyLimit = 256 * 1024 * 1024;

const Cell = Type.Union([Type.String(), Type.Number(), Type.Null()]);
/**
 * The document, with a given cell schema: typed in answers, unchecked on the way in, because
 * the validator's type coercion would rewrite cells (null into "" for a text column); the
 * service checks every cell against the live columns instead.
 */
const stateDocument = (cell: typeof Cell | ReturnType<typeof Type.Unknown>) =>
  Type.Object(
    {
      format: Type.Literal(stateFormat),
      version: Type.Literal(stateVersion),
      migrations: Type.Array(Type.String({ maxLength: 200 }), { description: 'the schema the rows follow' }),
      exported: Timestamp,
      clock: Type.Object({
        mode: Type.String(),
        // Any offset that keeps the clock within year 9999 of the epoch (the service checks the instant).
        offset_ms: Type.Integer({ minimum: -lastInstantMs, maximum: lastInstantMs }),
      }),
      tables: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), cell)), {
        description: 'every row of every table, by table name',
      }),
    },
    { description: 'the whole state of a Nubis; tokens and secrets as stored (sealed with the server key)' },
  );
const StateDocument = stateDocument(Cell);
const StateDocumentInput = stateDocument(Type.Unknown());
const StateSummary = Type.Object({
  tables: Type.Integer({ description: 'tables that received rows' }),
  rows: Type.Integer(),
  migrated: Type.Array(Type.String(), { description: 'migrations run on an older document' }),
});
const SavedState = Type.Object({
  name: Type.String(),
  created: Timestamp,
  size: Type.Integer({ description: 'characters of the stored document' }),
});
function savedStateObject(saved: DomainSavedState): Static<typeof SavedState> {
  return { name: saved.name, created: isoSeconds(saved.createdAt), size: saved.size };
}

// Not starting with a dot: `.` and `..` would be dot segments in DELETE /admin/state/{name}, which
// a URL resolves away (a state so named could be saved but never removed).
const StateName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\w-][\\w.-]*$', examples: ['fixture-1'] });

export function stateRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/state/export',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminExportState',
      summary: 'The whole state as one versioned document',
      description:
        'Loads on either database with POST /admin/state/import; the importing Nubis needs the same SECRET_KEY for tokens and sealed secrets to work.',
      response: responses({ 200: StateDocument }, adminErrors),
    },
    handler: () => exportState(ctx),
  });

  app.route({
    method: 'POST',
    url: '/state/import',
    bodyLimit: documentBodyLimit,
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminImportState',
      summary: 'Replace the whole state with a document',
      description: 'A document from an older Nubis is migrated first; one from a newer Nubis is refused (400).',
      body: StateDocumentInput,
      response: responses({ 200: StateSummary }, adminErrors),
    },
    handler: (request) => importState(ctx, request.body),
  });

  app.route({
    method: 'POST',
    url: '/state/save',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminSaveState',
      summary: 'Keep the current state on the server under a name (replacing one of that name)',
      description:
        'Keeps the current state (every account and resource, and the clock) on the server under a name, replacing a save of that name.',
      body: Type.Object({ name: StateName }),
      response: responses({ 201: SavedState }, adminErrors),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return savedStateObject(await saveState(ctx, request.body.name));
    },
  });

  app.route({
    method: 'POST',
    url: '/state/load',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminLoadState',
      summary: 'Replace the whole state with a saved one',
      description: 'Replaces the whole state with a saved one, as if the save had just been taken.',
      body: Type.Object({ name: StateName }),
      response: responses({ 200: StateSummary }, adminErrors),
    },
    handler: (request) => loadState(ctx, request.body.name),
  });

  app.route({
    method: 'GET',
    url: '/state',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminListSavedStates',
      summary: 'The saved states',
      description: 'The names of the saved states, with when each was taken.',
      response: responses({ 200: Type.Object({ states: Type.Array(SavedState) }) }, adminErrors),
    },
    handler: async () => ({ states: (await listSavedStates(ctx)).map(savedStateObject) }),
  });

  app.route({
    method: 'DELETE',
    url: '/state/:name',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminRemoveSavedState',
      summary: 'Remove a saved state',
      description: 'Removes a saved state by name.',
      params: Type.Object({ name: StateName }),
      response: responses({ 204: Type.Null() }, adminErrors),
    },
    handler: async (request, reply) => {
      await removeSavedState(ctx, request.params.name);
      return reply.code(204).send(null);
    },
  });
}
