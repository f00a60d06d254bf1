// Shapes of the catalog: regions, images and plans. The TypeBox schemas describe the file
// (catalog.json or CATALOG_FILE) and are checked at load; the types are derived from them,
// so the file format, its validation and the code that reads it cannot drift apart.
// Prices are decimal strings in the file and integer micro-dollars once loaded.

import { Type, type Static } from 'typebox';

export const continents = [
  'north-america',
  'south-america',
  'middle-east',
  'australia',
  'europe',
  'africa',
  'asia',
] as const;
export type Continent = (typeof continents)[number];

const Uuid = Type.String({
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  description: 'lower-case 36-character uuid',
});
const Price = Type.String({
  pattern: '^\\d{1,9}(\\.\\d{1,6})?$',
  description: 'USD as a decimal string, up to 6 decimals',
});
const Name = Type.String({ minLength: 1, maxLength: 200 });

/** Container (the default) or virtual machine, as the engine (LXD/Incus) names its instance types. */
const InstanceType = Type.Union([Type.Literal('container'), Type.Literal('virtual-machine')]);
const EngineName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' });

export const RegionFeaturesSchema = Type.Object(
  {
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
  },
  { additionalProperties: false },
);
export type RegionFeatures = Static<typeof RegionFeaturesSchema>;

export const RegionSchema = Type.Object(
  {
    /** Jurisdiction (generation) digits followed by a two-digit data-centre id 01-99, e.g. 101. */
    id: Type.Integer({
      minimum: 101,
      maximum: 9999,
      description: 'jurisdiction digits followed by a two-digit data-centre id 01-99',
    }),
    uuid: Uuid,
    slug: Type.String({ pattern: '^[a-z0-9-]{1,32}$' }),
    city: Name,
    state: Type.String({ maxLength: 100 }),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'two-letter ISO 3166 code' }),
    continent: Type.Union(continents.map((c) => Type.Literal(c))),
    features: RegionFeaturesSchema,
    /** Address the control panel pings for latency; may be empty. */
    ping_ip: Type.String({ maxLength: 45 }),
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    is_public: Type.Boolean(),
    operator_id: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
    /**
     * What each GB a server moves past its allowance costs here under the bandwidth policy
     * `charge` (default 0.01 when absent).
     */
    bandwidth_overage_per_gb: Type.Optional(Price),
    /** Hours after creation before a floating IP or VPC here may be removed (0 = no hold). */
    removal_hold_hours: Type.Integer({ minimum: 0, maximum: 8760 }),
    /**
     * What the real compute driver (COMPUTE_DRIVER=lxd) uses here: the engine network the
     * region's first IPv4 pool is served on (default nubis-<id>; the further pools on <network>p2,
     * p3 ...), a cluster group to place servers in, the instance type (container unless set), the
     * image rescue mode boots (default nubis-tiny), and on a cluster the uplink: the interface every
     * member has on the region's shared public segment, which the region's bridge takes in.
     */
    engine: Type.Optional(
      Type.Object(
        {
          network: Type.Optional(EngineName),
          cluster_group: Type.Optional(EngineName),
          instance_type: Type.Optional(InstanceType),
          rescue_image: Type.Optional(EngineName),
          uplink: Type.Optional(EngineName),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * What the operator runs beside Nubis in this region, each a short note of who provides it
     * (e.g. "scrubbing by the uplink provider"): a feature Nubis cannot provide itself is offered
     * only where it is declared here (src/catalog/region-features.ts, docs/decisions.md).
     */
    operator_services: Type.Optional(
      Type.Object(
        {
          ddos_protection: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          block_storage: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          object_storage: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          custom_iso: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Public address pools: IPv4 CIDRs and one IPv6 /48 (servers get a /64 each from it). */
    pools: Type.Object(
      {
        v4: Type.Array(
          Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}$', description: 'IPv4 CIDR, e.g. 192.0.2.0/25' }),
        ),
        /**
         * The v4 pools (each smaller than a /24) whose /24 the operator does not hold: their
         * reverse DNS is an RFC 2317 classless zone, reached through CNAMEs in the /24's zone.
         */
        v4_classless: Type.Optional(
          Type.Array(Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}$', description: 'one of v4' })),
        ),
        v6: Type.Union([
          Type.String({
            pattern: '^[0-9a-f]{1,4}(:[0-9a-f]{1,4}){0,2}::/48$',
            description: 'IPv6 /48, e.g. 2001:db8:101::/48',
          }),
          Type.Null(),
        ]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Region = Static<typeof RegionSchema>;

export const ImageFileSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    uuid: Uuid,
    name: Name,
    type: Type.Union([Type.Literal('os'), Type.Literal('app')]),
    os_type: Type.Union([Type.Literal('linux'), Type.Literal('freebsd'), Type.Literal('windows')]),
    os_distro: Type.String({ minLength: 1, maxLength: 50 }),
    onapp_os_distro: Type.String({ minLength: 1, maxLength: 50 }),
    /** Regions the image is offered in (ids). */
    regions: Type.Array(Type.Integer()),
    generation: Type.Integer({ minimum: 0 }),
    min_disk_gb: Type.Integer({ minimum: 1 }),
    min_memory_mb: Type.Integer({ minimum: 1 }),
    /** Licence fee per hour; "0" for free software. */
    hourly_cost: Price,
    /**
     * What the real compute driver (COMPUTE_DRIVER=lxd) boots for this image: `image`, the engine
     * image (alias or fingerprint; default nubis-debian, a Linux system, so an image of another OS
     * family is only offered there when it names its own); `nesting`, whether its servers run
     * containers themselves (Docker: LXD's security.nesting).
     */
    engine: Type.Optional(
      Type.Object(
        { image: Type.Optional(EngineName), nesting: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const PlanFileSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    uuid: Uuid,
    name: Name,
    plan_type: Type.String({ minLength: 1, maxLength: 50 }),
    vcpus: Type.Integer({ minimum: 1 }),
    ram_mb: Type.Integer({ minimum: 1 }),
    disk_gb: Type.Integer({ minimum: 1 }),
    /** Monthly transfer allowance in GB. */
    bandwidth_gb: Type.Integer({ minimum: 0 }),
    price_monthly: Price,
    /** Regions the plan is sold in; every region when empty. */
    regions: Type.Array(Type.Integer()),
    /** The engine instance type of this plan's servers (COMPUTE_DRIVER=lxd), over the region's. */
    engine: Type.Optional(Type.Object({ instance_type: Type.Optional(InstanceType) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const CatalogFileSchema = Type.Object(
  {
    regions: Type.Array(RegionSchema, { minItems: 1 }),
    images: Type.Array(ImageFileSchema, { minItems: 1 }),
    plans: Type.Array(PlanFileSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type CatalogFile = Static<typeof CatalogFileSchema>;

export type Image = Omit<Static<typeof ImageFileSchema>, 'hourly_cost'> & {
  /** Licence fee per hour in micro-dollars (0 for free software). */
  hourly_cost_micros: number;
};

export type Plan = Omit<Static<typeof PlanFileSchema>, 'price_monthly'> & {
  price_monthly_micros: number;
};

export interface Catalog {
  regions: Map<number, Region>;
  images: Map<number, Image>;
  plans: Map<number, Plan>;
  /** Loaded at this instant of the clock (shown as `timestamp` in listings). */
  loadedAt: number;
}
