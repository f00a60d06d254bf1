// What several pages look up the same way: a server's name from a list, the regions offering a feature.

import { api, type Region, type Server } from './api.ts';
import { useLoad } from './use-load.ts';

export function serverName(servers: Server[] | undefined, key: string | number | null): string {
  if (key === null) return '–';
  const found = servers?.find((s) => s.uuid === key || s.id === key);
  return found ? found.name : String(key);
}

export function useRegionOptions(feature: keyof Region['features']) {
  const regions = useLoad(() => api.regions());
  return Object.entries(regions.data?.regions ?? {})
    .filter(([, r]) => r.features[feature])
    .map(([id, r]) => ({ value: id, label: `${r.city}, ${r.country} (${id})` }));
}
