// Where the regions, images and plans come from.

import { area, variable } from '../platform/config-area.ts';
import { text } from '../platform/config-parsers.ts';

export const catalogConfig = area({
  title: 'Catalog',
  variables: {
    catalogFile: variable<string | null>(
      'CATALOG_FILE',
      null,
      text,
      'JSON file of regions, images and plans replacing the shipped `catalog/catalog.json`',
    ),
  },
});
