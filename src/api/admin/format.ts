// The operator API renders errors in the v1.3 shapes, so one client library handles both.

export { v13Format as adminFormat } from '../v1_3/format.ts';
