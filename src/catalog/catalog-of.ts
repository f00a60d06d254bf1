// A server's catalog entries (region, image, plan) looked up by id. The operator may replace the
// catalog; a server on a withdrawn entry still lists, and its machine is still timed and counted.

import type { Catalog, Image, Plan, Region } from './catalog.types.ts';

function withdrawnRegion(id: number): Region {
  return {
    id,
    uuid: '',
    slug: '',
    city: '',
    state: '',
    country: '',
    continent: 'europe' as Region['continent'],
    ping_ip: '',
    latitude: 0,
    longitude: 0,
    is_public: false,
    operator_id: null,
    removal_hold_hours: 0,
    features: {
      virtual_private_cloud: false,
      private_networking: false,
      ddos_protection: false,
      block_storage: false,
      object_storage: false,
      floating_ip: false,
      ipv6: false,
      backups: false,
      instances: false,
      custom_iso: false,
      smtp: false,
    },
    pools: { v4: [], v6: null },
  };
}
function withdrawnImage(id: number): Image {
  return {
    id,
    uuid: '',
    name: `image ${id} (withdrawn)`,
    type: 'os',
    os_type: 'linux',
    os_distro: '',
    onapp_os_distro: '',
    regions: [],
    generation: 0,
    min_disk_gb: 0,
    min_memory_mb: 0,
    hourly_cost_micros: 0,
  };
}
function withdrawnPlan(id: number): Plan {
  return {
    id,
    uuid: '',
    name: `plan ${id} (withdrawn)`,
    plan_type: '',
    vcpus: 0,
    ram_mb: 0,
    disk_gb: 0,
    bandwidth_gb: 0,
    price_monthly_micros: 0,
    regions: [],
  };
}

export function catalogOf(
  ctx: { catalog: Catalog },
  row: { region_id: number; image_id: number; plan_id: number },
): { region: Region; image: Image; plan: Plan } {
  return {
    region: ctx.catalog.regions.get(row.region_id) ?? withdrawnRegion(row.region_id),
    image: ctx.catalog.images.get(row.image_id) ?? withdrawnImage(row.image_id),
    plan: ctx.catalog.plans.get(row.plan_id) ?? withdrawnPlan(row.plan_id),
  };
}
