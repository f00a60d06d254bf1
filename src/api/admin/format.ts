// What every operator route shares: errors rendered in the v1.3 shapes (so one client library
// handles both), the statuses it may answer and its tag in the OpenAPI document.

export { v13Format as adminFormat } from '../v1_3/format.ts';

export const tags = ['operator'];
/** 401: wrong ADMIN_TOKEN; 403: the operator API is disabled (no ADMIN_TOKEN set). */
export const adminErrors = [400, 401, 403, 404];
