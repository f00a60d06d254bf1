// The one place a compute driver is chosen: COMPUTE_DRIVER names it, this builds it.

import type { Config } from '../config.ts';
import type { ComputeDriver } from './compute-driver.ts';
import { SimulatedDriver } from './simulated-driver.ts';
import { LxdDriver } from './lxd/lxd-driver.ts';

const drivers: Record<Config['computeDriver'], (config: Config) => ComputeDriver> = {
  simulated: (config) => new SimulatedDriver(config),
  lxd: (config) => new LxdDriver(config),
};

export function createComputeDriver(config: Config): ComputeDriver {
  return drivers[config.computeDriver](config);
}
