// v1.3 public listings: regions, images, and (our extension) plans. No token needed.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { listImages, listPlans, listRegions } from '../../catalog/listing.service.ts';
import { responses, Timestamp } from './schemas.ts';

const tags = ['v1.3 listings'];
const ContinentCounts = Type.Record(Type.String(), Type.Integer());
const Meta = Type.Object({ total: Type.Integer(), cached: Type.Boolean(), timestamp: Timestamp });

const Region = Type.Object(
  {
    uuid: Type.String(),
    city: Type.String(),
    state: Type.String(),
    country: Type.String(),
    continent: Type.String(),
    features: Type.Object({
      virtual_private_cloud: Type.Boolean(),
      private_networking: Type.Boolean(),
      ddos_protection: Type.Boolean(),
      block_storage: Type.Boolean(),
      object_storage: Type.Boolean(),
      floating_ip: Type.Boolean(),
      ipv6: Type.Boolean(),
      backups: Type.Boolean(),
      instances: Type.Boolean(),
      custom_iso: Type.Boolean(),
      smtp: Type.Boolean(),
      ping_ip: Type.String(),
    }),
    latitude: Type.Number(),
    longitude: Type.Number(),
    is_public: Type.Boolean(),
    generation: Type.Integer(),
    operator_id: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Region', description: 'a region of the catalog (spec: Region object)' },
);

const Image = Type.Object(
  {
    uuid: Type.String(),
    name: Type.String(),
    type: Type.String({ enum: ['os', 'app'] }),
    os_type: Type.String({ enum: ['linux', 'freebsd', 'windows'] }),
    os_distro: Type.String(),
    regions: Type.Array(Type.Integer()),
    generation: Type.Integer(),
    min_disk_gb: Type.Number(),
    hourly_cost: Type.Number(),
  },
  { $id: 'Image', description: 'an image of the catalog (spec: Image object)' },
);

const Plan = Type.Object(
  {
    uuid: Type.String(),
    name: Type.String(),
    plan_type: Type.String(),
    vcpus: Type.Integer(),
    memory_mb: Type.Integer(),
    disk_gb: Type.Integer(),
    bandwidth_gb: Type.Integer(),
    price_monthly: Type.Number(),
    price_hourly: Type.Number(),
    regions: Type.Array(Type.Integer()),
  },
  { $id: 'Plan', description: 'a plan of the catalog' },
);

const RegionFilter = Type.Object({
  region_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999, description: 'a region id' })),
});

export function listingRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/region/list',
    config: { access: 'public' },
    schema: {
      operationId: 'listRegions',
      summary: 'List regions',
      description: 'Every public region of the catalog with its features. Public: no token needed.',
      tags,
      security: [],
      response: responses(
        {
          200: Type.Object({
            regions: Type.Record(Type.String(), Region),
            meta: Type.Object({
              count: Type.Object({ public: ContinentCounts, private: ContinentCounts }),
              total: Type.Integer(),
              cached: Type.Boolean(),
              timestamp: Timestamp,
            }),
          }),
        },
        [429],
      ),
    },
    handler: async () => listRegions(ctx),
  });

  app.route({
    method: 'GET',
    url: '/image/list',
    config: { access: 'public' },
    schema: {
      operationId: 'listImages',
      summary: 'List images',
      description:
        'Operating systems and applications of the catalog, optionally only those offered in one region. Public: no token needed.',
      tags,
      security: [],
      querystring: RegionFilter,
      response: responses({ 200: Type.Object({ images: Type.Record(Type.String(), Image), meta: Meta }) }, [400, 429]),
    },
    handler: async (request) => listImages(ctx, request.query.region_id),
  });

  app.route({
    method: 'GET',
    url: '/plan/list',
    config: { access: 'public' },
    schema: {
      operationId: 'listPlans',
      summary: 'List plans',
      description:
        'Extension (not in the spec): the plans a server can be created with, optionally only those of one region. Public: no token needed.',
      tags,
      security: [],
      querystring: RegionFilter,
      response: responses({ 200: Type.Object({ plans: Type.Record(Type.String(), Plan), meta: Meta }) }, [400, 429]),
    },
    handler: async (request) => listPlans(ctx, request.query.region_id),
  });
}
