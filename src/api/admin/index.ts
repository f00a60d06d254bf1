// The operator API's route modules, one a line. The audit log comes first: its hook covers every route.

import type { RouteModule } from '../../http/api-scope.ts';
import { operatorRoutes } from './admin.routes.ts';
import { operatorAuditRoutes } from './audit.routes.ts';
import { faultRoutes } from './faults.routes.ts';
import { journalRoutes } from './journal.routes.ts';
import { operatorServerRoutes } from './servers.routes.ts';
import { operatorMachineRoutes } from './machines.routes.ts';
import { stateRoutes } from './state.routes.ts';
import { eventRoutes } from './events.routes.ts';
import { operatorPaymentRoutes } from './payments.routes.ts';
import { reverseDnsRoutes } from './reverse-dns.routes.ts';
import { hostRoutes } from './hosts.routes.ts';

export function adminRoutes(): RouteModule[] {
  return [
    operatorAuditRoutes,
    operatorRoutes,
    operatorServerRoutes,
    operatorMachineRoutes,
    faultRoutes,
    stateRoutes,
    journalRoutes,
    eventRoutes,
    operatorPaymentRoutes,
    reverseDnsRoutes,
    hostRoutes,
  ];
}
