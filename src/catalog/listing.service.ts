// The public listings of the catalog: regions, images and plans, in the spec's wrapper shapes.

import type { Platform } from '../platform/context.ts';
import { isoSeconds } from '../platform/clock.ts';
import { toDollars } from '../platform/money.ts';
import type { Continent, Image, Plan, Region } from './catalog.types.ts';
import { planAvailableIn } from './catalog.ts';
import { NotFound } from '../platform/errors.ts';

const continents: Continent[] = [
  'north-america',
  'south-america',
  'middle-east',
  'australia',
  'europe',
  'africa',
  'asia',
];

/** The jurisdiction ("generation") of a region: the digits before its two-digit data-centre id. */
export function generationOf(regionId: number): number {
  return Math.floor(regionId / 100);
}

function regionEntry(region: Region) {
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

export function listRegions(ctx: Platform) {
  const counts = {
    public: Object.fromEntries(continents.map((c) => [c, 0])),
    private: Object.fromEntries(continents.map((c) => [c, 0])),
  } as Record<'public' | 'private', Record<Continent, number>>;
  const regions: Record<string, ReturnType<typeof regionEntry>> = {};
  for (const region of ctx.catalog.regions.values()) {
    regions[String(region.id)] = regionEntry(region);
    counts[region.is_public ? 'public' : 'private'][region.continent]++;
  }
  return {
    regions,
    meta: { count: counts, total: ctx.catalog.regions.size, cached: true, timestamp: isoSeconds(ctx.catalog.loadedAt) },
  };
}

export function imageEntry(image: Image) {
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

/** The region a listing names by id (the legacy API's DCID), or 404. */
export function listedRegion(ctx: Platform, regionId: number): Region {
  const region = ctx.catalog.regions.get(regionId);
  if (!region) throw new NotFound('location');
  return region;
}

/** Every region of the catalog, as catalog entries for any adapter to shape. */
export function regionsOffered(ctx: Platform): Region[] {
  return [...ctx.catalog.regions.values()];
}

/** Images offered in the region (every image without one), as catalog entries for any adapter to shape. */
export function imagesOffered(ctx: Platform, regionId?: number): Image[] {
  return [...ctx.catalog.images.values()].filter((image) => regionId === undefined || image.regions.includes(regionId));
}

/** Plans sold in the region (every plan without one). */
export function plansOffered(ctx: Platform, regionId?: number): Plan[] {
  return [...ctx.catalog.plans.values()].filter((plan) => regionId === undefined || planAvailableIn(plan, regionId));
}

/** Whether a Windows image offered in the region fits the plan's disk (server create's rule). */
export function planRunsWindows(ctx: Platform, plan: Plan, regionId: number): boolean {
  return imagesOffered(ctx, regionId).some((image) => image.os_type === 'windows' && image.min_disk_gb <= plan.disk_gb);
}

export function listImages(ctx: Platform, regionId: number | undefined) {
  const images: Record<string, ReturnType<typeof imageEntry>> = {};
  for (const image of imagesOffered(ctx, regionId)) images[String(image.id)] = imageEntry(image);
  return {
    images,
    meta: { total: Object.keys(images).length, cached: true, timestamp: isoSeconds(ctx.catalog.loadedAt) },
  };
}

/** Hourly price of a plan: the monthly price over 730 hours, rounded up to the micro-dollar. */
export function planHourlyMicros(plan: Plan): number {
  return Math.ceil(plan.price_monthly_micros / 730);
}

export function planEntry(ctx: Platform, plan: Plan) {
  const regions = plan.regions.length ? plan.regions : [...ctx.catalog.regions.keys()];
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
    regions,
  };
}

export function listPlans(ctx: Platform, regionId: number | undefined) {
  const plans: Record<string, ReturnType<typeof planEntry>> = {};
  for (const plan of plansOffered(ctx, regionId)) plans[String(plan.id)] = planEntry(ctx, plan);
  return {
    plans,
    meta: { total: Object.keys(plans).length, cached: true, timestamp: isoSeconds(ctx.catalog.loadedAt) },
  };
}
