// The v1.3 route modules, in the order the spec lists their parts.

import type { RouteModule } from '../../http/api-scope.ts';
import { tokenRoutes } from './token.routes.ts';
import { accountRoutes } from './account.routes.ts';
import { listingRoutes } from './listing.routes.ts';
import { billingRoutes } from './billing.routes.ts';
import { paymentRoutes } from './payment.routes.ts';
import { documentRoutes } from './document.routes.ts';
import { snapshotRoutes } from './snapshot.routes.ts';
import { serverRoutes } from './server.routes.ts';
import { serverActivityRoutes } from './server-activity.routes.ts';
import { serverMetricsRoutes } from './server-metrics.routes.ts';
import { rdnsOptionRoutes } from './rdns-option.routes.ts';
import { backupRoutes } from './backup.routes.ts';
import { floatingIpRoutes } from './floating-ip.routes.ts';
import { vpcRoutes } from './vpc.routes.ts';
import { sshKeyRoutes } from './ssh-key.routes.ts';

export const v13Routes: RouteModule[] = [
  tokenRoutes,
  accountRoutes,
  billingRoutes,
  paymentRoutes,
  documentRoutes,
  snapshotRoutes,
  serverRoutes,
  serverActivityRoutes,
  serverMetricsRoutes,
  rdnsOptionRoutes,
  floatingIpRoutes,
  vpcRoutes,
  sshKeyRoutes,
  backupRoutes,
  listingRoutes,
];
