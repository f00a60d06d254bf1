// The one place a compute driver is chosen: COMPUTE_DRIVER names it, this builds it. Each driver
// is imported only when chosen: the LXD driver's modules cost every simulated start for nothing.

import type { Config } from '../config.ts';
import type { ComputeDriver } from './compute-driver.ts';

const drivers: Record<Config['computeDriver'], (config: Config) => Promise<ComputeDriver>> = {
  simulated: async (config) => new (await import('./simulated-driver.ts')).SimulatedDriver(config),
  lxd: async (config) => new (await import('./lxd/lxd-driver.ts')).LxdDriver(config),
};

export function createComputeDriver(config: Config): Promise<ComputeDriver> {
  return drivers[config.computeDriver](config);
}
