// The engine commands of the nubis CLI: `compute setup`, `compute trust` and `images build`.

import { ConfigError, type Config } from '../../config.ts';
import { loadCatalog } from '../../catalog/catalog.ts';
import { lxdClientFrom } from './lxd-driver.ts';
import { computeSetup, SetupError } from './setup.ts';
import { buildImages, type ImageName, imageNames } from './images.ts';

export async function runComputeSetup(config: Config): Promise<void> {
  const client = lxdClientFrom(config);
  try {
    const report = await computeSetup(config, loadCatalog(config.catalogFile, 0), client);
    for (const line of report.created) process.stdout.write(`created ${line}\n`);
    for (const line of report.updated) process.stdout.write(`updated ${line}\n`);
    for (const line of report.present) process.stdout.write(`present ${line}\n`);
    for (const line of report.warnings) process.stdout.write(`warning: ${line}\n`);
    for (const alias of report.missingImages)
      process.stdout.write(
        `missing image ${alias}: run nubis images build (or point the catalog's engine.image at yours)\n`,
      );
  } catch (error) {
    if (error instanceof SetupError) throw new ConfigError(`compute setup refused:\n${error.message}`);
    throw error;
  } finally {
    client.close();
  }
}

/** A remote engine trusts LXD_CLIENT_CERT from now on (the token is its administrator's `lxc config trust add`). */
export async function runComputeTrust(config: Config, token: string): Promise<void> {
  if (!config.lxdUrl.startsWith('https://'))
    throw new ConfigError(
      'compute trust is for an engine over https (LXD_URL=https://...); the unix socket needs no trust',
    );
  const client = lxdClientFrom(config);
  try {
    await client.trust(token);
    process.stdout.write(`the engine at ${config.lxdUrl} trusts ${config.lxdClientCert}\n`);
  } finally {
    client.close();
  }
}

export async function runImagesBuild(config: Config, options: { only?: string; mirror?: string }): Promise<void> {
  const names = (options.only ? [options.only] : ['tiny', 'debian']) as ImageName[];
  for (const name of names)
    if (!imageNames.includes(name))
      throw new ConfigError(`images build --only takes ${imageNames.join(', ')}, got "${name}"`);
  const client = lxdClientFrom(config);
  try {
    await buildImages(client, names, {
      mirror: options.mirror ?? 'http://deb.debian.org/debian',
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } finally {
    client.close();
  }
}
