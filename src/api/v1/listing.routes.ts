// Legacy v1 public listings: locations, and the templates and plans of one location (DCID),
// mapped from the same catalog as the v1.3 listings. No key needed.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  imagesOffered,
  listedRegion,
  planRunsWindows,
  plansOffered,
  regionsOffered,
} from '../../catalog/listing.service.ts';
import { responses, tags } from './schemas.ts';
import {
  keyed,
  Keyed,
  LegacyLocation,
  LegacyPlan,
  LegacyTemplate,
  toLegacyLocation,
  toLegacyPlan,
  isLegacyTemplate,
  toLegacyTemplate,
} from './shapes.ts';

const Location = Type.Object({
  DCID: Type.Integer({ minimum: 1, maximum: 9999, description: 'a location id from /locations/list (the region id)' }),
});

export function listingRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/locations/list',
    config: { access: 'public' },
    schema: {
      operationId: 'legacyListLocations',
      summary: 'List locations (legacy)',
      description: 'Every location (region); its id is the DCID. Public: no key needed.',
      tags,
      response: responses({ 200: Keyed(LegacyLocation) }, [429]),
    },
    handler: async () => keyed(regionsOffered(ctx).map(toLegacyLocation), (location) => location.id),
  });

  app.route({
    method: 'GET',
    url: '/templates/list/:DCID',
    config: { access: 'public' },
    schema: {
      operationId: 'legacyListTemplates',
      summary: 'List templates of a location (legacy)',
      description:
        'Operating systems and applications offered in the location; the id is the OSID. Public: no key needed.',
      tags,
      params: Location,
      response: responses({ 200: Keyed(LegacyTemplate) }, [400, 404, 429]),
    },
    handler: async (request) => {
      const region = listedRegion(ctx, request.params.DCID);
      return keyed(
        imagesOffered(ctx, region.id).filter(isLegacyTemplate).map(toLegacyTemplate),
        (template) => template.id,
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/plans/list/:DCID',
    config: { access: 'public' },
    schema: {
      operationId: 'legacyListPlans',
      summary: 'List plans of a location (legacy)',
      description: 'Plans sold in the location; the id is the PLAN. Public: no key needed.',
      tags,
      params: Location,
      response: responses({ 200: Keyed(LegacyPlan) }, [400, 404, 429]),
    },
    handler: async (request) => {
      const region = listedRegion(ctx, request.params.DCID);
      return keyed(
        plansOffered(ctx, region.id).map((plan) => toLegacyPlan(plan, planRunsWindows(ctx, plan, region.id))),
        (plan) => plan.id,
      );
    },
  });
}
