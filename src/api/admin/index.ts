// The operator API's route modules.

import type { RouteModule } from '../../http/api-scope.ts';
import type { AppDeps } from '../../http/app.ts';
import { operatorRoutes } from './admin.routes.ts';

export function adminRoutes(_deps: AppDeps): RouteModule[] {
  return [operatorRoutes];
}
