// The operator API's route modules.

import type { RouteModule } from '../../http/api-scope.ts';
import { operatorRoutes } from './admin.routes.ts';
import { faultRoutes } from './faults.routes.ts';
import { stateRoutes } from './state.routes.ts';
import { journalRoutes } from './journal.routes.ts';

export function adminRoutes(): RouteModule[] {
  return [operatorRoutes, faultRoutes, stateRoutes, journalRoutes];
}
