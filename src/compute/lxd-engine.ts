// The LXD driver's public face outside the seam: what the command line (bin/), the real-driver
// suites (test/lxd, test/cluster), their scripts and the LXD benches may use of src/compute/lxd/.

export { clusterVpcNetwork } from './lxd/cluster-networks.ts';
export { runComputeSetup, runComputeTrust, runImagesBuild } from './lxd/commands.ts';
export { engineTurn } from './lxd/engine-turn.ts';
export { cloudImageRevision, debianImageRevision, tinyImageRevision } from './lxd/images.ts';
export { LxdClient, type RequestOptions } from './lxd/lxd-client.ts';
export { LxdDriver } from './lxd/lxd-driver.ts';
export { instanceName } from './lxd/lxd-names.ts';
