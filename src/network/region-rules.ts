// What a region allows for network resources (floating IPs, VPCs): the feature flags of the
// catalog, and the removal hold some regions put on them for hours after creation.

import type { Platform } from '../platform/context.ts';
import type { Region, RegionFeatures } from '../catalog/catalog.types.ts';
import { findIn } from '../catalog/catalog.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { isoSeconds } from '../platform/clock.ts';

const HOUR_MS = 3_600_000;

/**
 * The region named by id or uuid, refusing one that does not offer the feature.
 * An unknown region is a 404 (the spec's answer for an id that names nothing); a region
 * without the feature is a 400 naming the field, since no retry can make it work.
 */
export function regionOffering(
  ctx: Platform,
  ref: string | number,
  feature: keyof RegionFeatures,
  field: string,
): Region {
  const region = findIn(ctx.catalog.regions, ref);
  if (!region) throw new NotFound('region');
  if (!region.features[feature]) throw new Invalid(field, `region ${region.id} does not offer ${feature}`);
  return region;
}

/** Refuses removal before the region's hold has passed since creation (no hold: always allowed). */
export function assertRemovalHoldOver(ctx: Platform, what: string, regionId: number, createdAt: number): void {
  const hours = ctx.catalog.regions.get(regionId)?.removal_hold_hours ?? 0;
  const until = createdAt + hours * HOUR_MS;
  if (ctx.clock.now() < until) {
    throw new Conflict(
      `${what} cannot be removed yet: region ${regionId} keeps it for ${hours} hours after creation, until ${isoSeconds(until)}`,
    );
  }
}
