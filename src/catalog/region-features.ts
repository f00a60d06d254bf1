// The features a region offers, derived from what the deployment has rather than taken from the
// catalog's flags alone: a flag is a ceiling the operator sets, and each feature also needs what
// makes it real here — an address pool, or a service the operator declares it runs beside Nubis.
// The region listing, and every check of a feature at creation, read the derived flags.

import type { Config } from '../config.ts';
import type { Catalog, Region, RegionFeatures } from './catalog.types.ts';

type Driver = Config['computeDriver'];
type OperatorService = keyof NonNullable<Region['operator_services']>;

/**
 * On the real driver a feature Nubis has no API or engine for (block and object storage, ISO
 * upload) is true only where the operator declares the service, and so is DDoS protection (a host
 * alone filters no attack). The simulated driver is an emulator of a provider: it shows those as
 * the catalog describes them (docs/decisions.md, "network promises"). Pools count on both.
 */
export function offeredFeatures(region: Region, driver: Driver): RegionFeatures {
  const flags = region.features;
  const v4 = region.pools.v4.length > 0;
  const declared = (service: OperatorService) => driver === 'simulated' || Boolean(region.operator_services?.[service]);
  return {
    ...flags,
    instances: flags.instances && v4,
    floating_ip: flags.floating_ip && v4,
    ipv6: flags.ipv6 && region.pools.v6 !== null,
    ddos_protection: flags.ddos_protection && declared('ddos_protection'),
    block_storage: flags.block_storage && declared('block_storage'),
    object_storage: flags.object_storage && declared('object_storage'),
    custom_iso: flags.custom_iso && declared('custom_iso'),
  };
}

/** The catalog with each region's features as offered on this deployment's driver. */
export function withOfferedFeatures(catalog: Catalog, driver: Driver): Catalog {
  const regions = new Map(
    [...catalog.regions].map(([id, region]) => [id, { ...region, features: offeredFeatures(region, driver) }]),
  );
  return { ...catalog, regions };
}
