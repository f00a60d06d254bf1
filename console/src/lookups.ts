// What several pages look up the same way: a server's name from a list.

import type { Server } from './api.ts';

export function serverName(servers: Server[] | undefined, key: string | number | null): string {
  if (key === null) return '–';
  const found = servers?.find((s) => s.uuid === key || s.id === key);
  return found ? found.name : String(key);
}
