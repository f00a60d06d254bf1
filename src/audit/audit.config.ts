// How the operator audit log names the operator.

import { area, variable } from '../platform/config-area.ts';
import { text } from '../platform/config-parsers.ts';

export const auditConfig = area({
  title: 'Operator audit log',
  variables: {
    adminName: variable<string | null>(
      'ADMIN_NAME',
      null,
      text,
      'who the operator audit log (GET /admin/audit) names for calls with ADMIN_TOKEN; default: `token:` and 12 hex digits of its SHA-256',
    ),
  },
});
