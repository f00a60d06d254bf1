// The legacy v1 route modules: a façade over the same services as v1.3, in the order the
// spec lists them. One account, one set of servers, snapshots and IPs, whichever version made them.

import type { RouteModule } from '../../http/api-scope.ts';
import { accountRoutes } from './account.routes.ts';
import { listingRoutes } from './listing.routes.ts';
import { reservedIpRoutes } from './reserved-ip.routes.ts';
import { serverRoutes } from './server.routes.ts';
import { snapshotRoutes } from './snapshot.routes.ts';

export const v1Routes: RouteModule[] = [accountRoutes, listingRoutes, reservedIpRoutes, serverRoutes, snapshotRoutes];
