// v1.3 public listings: regions, images, and (our extension) plans. No token needed.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  catalogLoadedAt,
  generationOf,
  imagesOffered,
  planHourlyMicros,
  planRegions,
  plansOffered,
  regionsOffered,
} from '../../catalog/listing.service.ts';
import {
  type Continent,
  continents,
  type Image as CatalogImage,
  type Plan as CatalogPlan,
  type Region as CatalogRegion,
  RegionFeaturesSchema,
} from '../../catalog/catalog.types.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { toDollars } from '../../platform/money.ts';
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
    // The catalog's features (one declaration: catalog.types.ts) and the address the panel pings.
    features: Type.Object({ ...RegionFeaturesSchema.properties, ping_ip: Type.String() }),
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

const RegionList = Type.Object({
  regions: Type.Record(Type.String(), Region),
  meta: Type.Object({
    count: Type.Object({ public: ContinentCounts, private: ContinentCounts }),
    total: Type.Integer(),
    cached: Type.Boolean(),
    timestamp: Timestamp,
  }),
});
const ImageList = Type.Object({ images: Type.Record(Type.String(), Image), meta: Meta });
const PlanList = Type.Object({ plans: Type.Record(Type.String(), Plan), meta: Meta });

function regionObject(region: CatalogRegion): Static<typeof Region> {
  return {
    uuid: region.uuid,
    city: region.city,
    state: region.state,
    country: region.country,
    continent: region.continent,
    features: { ...region.features, ping_ip: region.ping_ip },
    latitude: region.latitude,
    longitude: region.longitude,
    is_public: region.is_public,
    generation: generationOf(region.id),
    operator_id: region.operator_id,
  };
}

function imageObject(image: CatalogImage): Static<typeof Image> {
  return {
    uuid: image.uuid,
    name: image.name,
    type: image.type,
    os_type: image.os_type,
    os_distro: image.os_distro,
    regions: image.regions,
    generation: image.generation,
    min_disk_gb: image.min_disk_gb,
    hourly_cost: toDollars(image.hourly_cost_micros),
  };
}

function planObject(ctx: Platform, plan: CatalogPlan): Static<typeof Plan> {
  return {
    uuid: plan.uuid,
    name: plan.name,
    plan_type: plan.plan_type,
    vcpus: plan.vcpus,
    memory_mb: plan.ram_mb,
    disk_gb: plan.disk_gb,
    bandwidth_gb: plan.bandwidth_gb,
    price_monthly: toDollars(plan.price_monthly_micros),
    price_hourly: toDollars(planHourlyMicros(plan)),
    regions: planRegions(ctx, plan),
  };
}

/** The regions keyed by id, with how many of them each continent has, public and private. */
function regionList(ctx: Platform): Static<typeof RegionList> {
  const counts = {
    public: Object.fromEntries(continents.map((c) => [c, 0])),
    private: Object.fromEntries(continents.map((c) => [c, 0])),
  } as Record<'public' | 'private', Record<Continent, number>>;
  const regions: Record<string, Static<typeof Region>> = {};
  const offered = regionsOffered(ctx);
  for (const region of offered) {
    regions[String(region.id)] = regionObject(region);
    counts[region.is_public ? 'public' : 'private'][region.continent]++;
  }
  return {
    regions,
    meta: { count: counts, total: offered.length, cached: true, timestamp: isoSeconds(catalogLoadedAt(ctx)) },
  };
}

function imageList(ctx: Platform, regionId: number | undefined): Static<typeof ImageList> {
  const images: Record<string, Static<typeof Image>> = {};
  for (const image of imagesOffered(ctx, regionId)) images[String(image.id)] = imageObject(image);
  return {
    images,
    meta: { total: Object.keys(images).length, cached: true, timestamp: isoSeconds(catalogLoadedAt(ctx)) },
  };
}

function planList(ctx: Platform, regionId: number | undefined): Static<typeof PlanList> {
  const plans: Record<string, Static<typeof Plan>> = {};
  for (const plan of plansOffered(ctx, regionId)) plans[String(plan.id)] = planObject(ctx, plan);
  return {
    plans,
    meta: { total: Object.keys(plans).length, cached: true, timestamp: isoSeconds(catalogLoadedAt(ctx)) },
  };
}

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
      response: responses({ 200: RegionList }, [429]),
    },
    handler: async () => regionList(ctx),
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
      querystring: RegionFilter,
      response: responses({ 200: ImageList }, [400, 429]),
    },
    handler: async (request) => imageList(ctx, request.query.region_id),
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
      querystring: RegionFilter,
      response: responses({ 200: PlanList }, [400, 429]),
    },
    handler: async (request) => planList(ctx, request.query.region_id),
  });
}
