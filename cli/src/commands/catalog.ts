// `nubis region|image|plan`: the catalog's listings, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, number, type Row } from '../command-kit.ts';
import { type Column, rowsOf } from '../output.ts';

export function addCatalogCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows } = kit;
  const catalog = (name: 'region' | 'image' | 'plan', columns: Column[]) => {
    const command = group(program, name, `${name}s of the catalog`);
    const list = leaf(command, 'list', `list ${name}s`);
    if (name !== 'region') list.option('--region <id>', 'only those offered in this region', number('--region'));
    list.action(async (options, leafCommand: Command) => {
      const api = client(leafCommand);
      const query = options.region ? { params: { query: { region_id: options.region } } } : {};
      const data =
        name === 'region'
          ? await unwrap(api.GET('/v1.3/region/list'))
          : name === 'image'
            ? await unwrap(api.GET('/v1.3/image/list', query as never))
            : await unwrap(api.GET('/v1.3/plan/list', query as never));
      const listing = (data as Row)[`${name}s`];
      printRows(leafCommand, data, rowsOf(listing), columns);
    });
  };
  catalog('region', [
    { header: 'ID', value: 'id' },
    { header: 'CITY', value: 'city' },
    { header: 'COUNTRY', value: 'country' },
    { header: 'CONTINENT', value: 'continent' },
  ]);
  catalog('image', [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'TYPE', value: 'type' },
    { header: 'MIN_DISK_GB', value: 'min_disk_gb' },
  ]);
  catalog('plan', [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'VCPUS', value: 'vcpus' },
    { header: 'MEMORY_MB', value: 'memory_mb' },
    { header: 'DISK_GB', value: 'disk_gb' },
    { header: 'PER_MONTH', value: 'price_monthly' },
  ]);
}
