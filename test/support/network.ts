// Fixtures for the networking tests: a catalog with a tiny address pool and a region
// without IPv6 (for CATALOG_FILE), and a server created the way a client would.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedCatalogFile } from '../../src/catalog/catalog.ts';

/**
 * The shipped catalog, except: region 101's IPv4 pool is 192.0.2.0/29 (five usable
 * addresses), and region 102 offers no IPv6. Returns the path of the file.
 */
export function smallCatalogFile(): string {
  const catalog = JSON.parse(readFileSync(shippedCatalogFile, 'utf8'));
  const region = (id: number) => catalog.regions.find((r: { id: number }) => r.id === id);
  region(101).pools.v4 = ['192.0.2.0/29'];
  region(102).features.ipv6 = false;
  region(102).pools.v6 = null;
  const file = join(mkdtempSync(join(tmpdir(), 'nubis-catalog-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog, null, 2));
  return file;
}
