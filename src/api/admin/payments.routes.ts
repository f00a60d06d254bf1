// The operator's side of payments and documents: every account's invoice documents, the bank
// transfers waiting for money, and marking one received (which credits the balance once).

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { markTransferReceived, pendingTransfers, transferPageMax } from '../../payments/payment.service.ts';
import { MAX_ROW_ID } from '../../platform/ids.ts';
import { parseRef } from '../../platform/ids.ts';
import { NotFound } from '../../platform/errors.ts';
import { responses, PageMeta } from '../v1_3/schemas.ts';
import { AdminTransaction, adminTransactionObject } from './admin.routes.ts';
import { InvoiceDocument, invoiceDocumentObject, PdfResponse, sendPdf } from '../v1_3/document.routes.ts';
import { documentPdf, operatorDocuments } from '../../documents/document.service.ts';
import { adminErrors, tags } from './format.ts';

export function operatorPaymentRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/accounts/:account/documents',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListAccountDocuments',
      summary: "List an account's invoice documents",
      description: "The account's monthly invoice documents, newest first.",
      tags,
      params: Type.Object({
        account: Type.String({ minLength: 1, maxLength: 254, description: 'id, uuid or e-mail' }),
      }),
      response: responses(
        { 200: Type.Object({ documents: Type.Array(InvoiceDocument), meta: PageMeta }) },
        adminErrors,
      ),
    },
    handler: async (request) => {
      const { documents, meta } = await operatorDocuments(ctx, request.params.account);
      return { documents: documents.map(invoiceDocumentObject), meta };
    },
  });

  app.route({
    method: 'GET',
    url: '/documents/:document/pdf',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminDownloadDocument',
      summary: 'Download an invoice document',
      description: "The PDF of any account's invoice document, as issued.",
      tags,
      params: Type.Object({ document: Type.String({ maxLength: 20, description: 'the document id' }) }),
      response: { ...responses({}, adminErrors), 200: PdfResponse },
    },
    handler: async (request, reply) => {
      const ref = parseRef(request.params.document);
      if (!ref || !('id' in ref)) throw new NotFound('document');
      return sendPdf(reply, await documentPdf(ctx, ref.id, null));
    },
  });

  app.route({
    method: 'GET',
    url: '/transfers',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListPendingTransfers',
      summary: 'List bank transfers awaited',
      description:
        'Pending bank transfers of every account, newest first, with reference and account; `limit` per page (default 100). Page on with `before` set to `meta.next_before` (null on the last page). Transfers past BANK_TRANSFER_EXPIRY_DAYS are expired and not listed.',
      tags,
      querystring: Type.Object({
        // An id as its column holds it (32-bit on PostgreSQL).
        before: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROW_ID })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: transferPageMax })),
      }),
      response: responses(
        {
          200: Type.Object({
            transfers: Type.Array(
              Type.Object(
                { ...AdminTransaction.properties, account_id: Type.Integer() },
                { description: 'a pending bank transfer' },
              ),
            ),
            meta: Type.Object({
              next_before: Type.Union([Type.Integer(), Type.Null()], {
                description: 'the `before` of the next page; null when this page is the last',
              }),
            }),
          }),
        },
        adminErrors,
      ),
    },
    handler: async (request) => {
      const { transfers, nextBefore } = await pendingTransfers(ctx, request.query);
      return {
        transfers: transfers.map((transfer) => ({
          ...adminTransactionObject(transfer),
          account_id: transfer.accountId,
        })),
        meta: { next_before: nextBefore },
      };
    },
  });

  app.route({
    method: 'POST',
    url: '/transactions/:transaction/received',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminReceiveTransfer',
      summary: 'Mark a bank transfer received',
      description:
        'Completes a pending bank transfer and credits its amount to the balance. 409 when the transaction is not a bank transfer or not pending (a second call credits nothing).',
      tags,
      params: Type.Object({ transaction: Type.String({ maxLength: 20, description: 'the transaction id' }) }),
      response: responses({ 200: AdminTransaction }, [...adminErrors, 409]),
    },
    handler: async (request) => {
      const ref = parseRef(request.params.transaction);
      if (!ref || !('id' in ref)) throw new NotFound('transaction');
      return adminTransactionObject(await markTransferReceived(ctx, ref.id));
    },
  });
}
