// v1.3 billing: transactions (invoice list and sum arrive with the billing issue).

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { listTransactions } from '../../billing/transaction.service.ts';
import { responses, Timestamp } from './schemas.ts';

const tags = ['v1.3 billing'];
const Transaction = Type.Object({
  id: Type.String({ description: 'declared integer; sent string-shaped as the examples show' }), ptype: Type.String(), pstatus: Type.String(),
  amount: Type.Number(), fee: Type.Number(), taxrate: Type.Number(), ts_created: Timestamp, ts_last_changed: Timestamp,
});

export function billingRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET', url: '/transaction/list', config: { access: 'account' },
    schema: { tags, summary: 'The 100 latest transactions', response: responses({ 200: Type.Object({ transactions: Type.Array(Transaction), meta: Type.Object({ total: Type.Integer() }) }) }, [401, 429]) },
    handler: (request) => listTransactions(ctx, actorOf(request).accountId),
  });
}
