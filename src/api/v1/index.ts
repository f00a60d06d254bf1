// The legacy v1 route modules.

import type { RouteModule } from '../../http/api-scope.ts';

export const v1Routes: RouteModule[] = [];
