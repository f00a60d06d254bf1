// The APIs Nubis serves, assembled for the HTTP app (src/http/app.ts takes them as given): each
// API's error format and routes, the payment processors' routes and the consoles' WebSockets.

import type { ServedApis } from '../http/app.ts';
import { v13Format } from './v1_3/format.ts';
import { v13Routes } from './v1_3/index.ts';
import { v1Format, v1Setup } from './v1/format.ts';
import { v1Routes } from './v1/index.ts';
import { adminFormat } from './admin/format.ts';
import { adminRoutes } from './admin/index.ts';
import { processorRoutes } from './processors/processor.routes.ts';
import { serverConsoleSockets } from './server-console.socket.ts';

export const servedApis: ServedApis = {
  v13: { format: v13Format, routes: v13Routes },
  v1: { format: v1Format, routes: v1Routes, setup: v1Setup },
  admin: { format: adminFormat, routes: adminRoutes },
  processors: processorRoutes,
  consoleSockets: serverConsoleSockets,
};
