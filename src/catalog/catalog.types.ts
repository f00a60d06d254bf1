// Shapes of the catalog: regions, images and plans, as loaded from catalog.json (or CATALOG_FILE).
// Prices are decimal strings in the file and integer micro-dollars once loaded.

export type Continent = 'north-america' | 'south-america' | 'middle-east' | 'australia' | 'europe' | 'africa' | 'asia';

export interface RegionFeatures {
  virtual_private_cloud: boolean;
  private_networking: boolean;
  ddos_protection: boolean;
  block_storage: boolean;
  object_storage: boolean;
  floating_ip: boolean;
  ipv6: boolean;
  backups: boolean;
  instances: boolean;
  custom_iso: boolean;
  smtp: boolean;
}

export interface Region {
  /** Jurisdiction (generation) digits followed by a two-digit data-centre id, e.g. 101. */
  id: number;
  uuid: string;
  slug: string;
  city: string;
  state: string;
  country: string;
  continent: Continent;
  features: RegionFeatures;
  ping_ip: string;
  latitude: number;
  longitude: number;
  is_public: boolean;
  operator_id: string | null;
  /** Hours after creation before a floating IP or VPC here may be removed (0 = no hold). */
  removal_hold_hours: number;
  /** Public address pools: IPv4 CIDRs and one IPv6 prefix (servers get a /64 each from it). */
  pools: { v4: string[]; v6: string | null };
}

export interface Image {
  id: number;
  uuid: string;
  name: string;
  type: 'os' | 'app';
  os_type: 'linux' | 'freebsd' | 'windows';
  os_distro: string;
  onapp_os_distro: string;
  regions: number[];
  generation: number;
  min_disk_gb: number;
  min_memory_mb: number;
  /** Licence fee per hour in micro-dollars (0 for free software). */
  hourly_cost_micros: number;
}

export interface Plan {
  id: number;
  uuid: string;
  name: string;
  plan_type: string;
  vcpus: number;
  ram_mb: number;
  disk_gb: number;
  /** Monthly transfer allowance in GB. */
  bandwidth_gb: number;
  price_monthly_micros: number;
  /** Regions the plan is sold in; every region when empty. */
  regions: number[];
}

export interface Catalog {
  regions: Map<number, Region>;
  images: Map<number, Image>;
  plans: Map<number, Plan>;
  /** Loaded at this instant of the clock (shown as `timestamp` in listings). */
  loadedAt: number;
}
