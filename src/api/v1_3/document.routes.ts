// v1.3 invoice documents (extension): the account's monthly invoice documents and their PDFs.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { NotFound } from '../../platform/errors.ts';
import { parseRef } from '../../platform/ids.ts';
import {
  accountDocuments,
  documentPdf,
  type InvoiceDocument as DomainInvoiceDocument,
} from '../../documents/document.service.ts';
import { documentFilename, documentNumberText } from '../../documents/document-name.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { toCents } from '../../platform/money.ts';
import { PathRef, responses, Timestamp, PageMeta } from './schemas.ts';

const tags = ['v1.3 billing'];

export const InvoiceDocument = Type.Object(
  {
    id: Type.Integer(),
    number: Type.Integer({ description: 'numbered without gaps across the deployment' }),
    number_text: Type.String({
      description: 'extension: the number as the document prints it, six digits',
      examples: ['000001'],
    }),
    filename: Type.String({
      description: 'extension: the file name a download is saved as (also its Content-Disposition)',
      examples: ['invoice-000001-2026-11.pdf'],
    }),
    period: Type.String({ description: 'the month, YYYY-MM (UTC)', examples: ['2026-11'] }),
    ts_start: Timestamp,
    ts_end: Timestamp,
    usage: Type.Number({ description: "USD: the month's usage, as invoice/sum totals it" }),
    payments: Type.Number({ description: 'USD: payments net of VAT (refunds and disputes subtract)' }),
    tax: Type.Number({ description: 'USD: VAT on those payments' }),
    opening_balance: Type.Number({ description: 'USD: the balance carried over from before the month' }),
    closing_balance: Type.Number({ description: 'USD: the balance at the end of the month' }),
    ts_created: Timestamp,
  },
  { $id: 'InvoiceDocument', description: 'a monthly invoice document (extension)' },
);

/** An invoice document on the wire (v1.3 and the operator API). */
export function invoiceDocumentObject(document: DomainInvoiceDocument): Static<typeof InvoiceDocument> {
  return {
    id: document.id,
    number: document.number,
    number_text: documentNumberText(document.number),
    filename: documentFilename(document.number, document.period),
    period: document.period,
    ts_start: isoSeconds(document.periodStart),
    ts_end: isoSeconds(document.periodEnd),
    usage: toCents(document.usageMicros),
    payments: toCents(document.paymentsMicros),
    tax: toCents(document.taxMicros),
    opening_balance: toCents(document.openingMicros),
    closing_balance: toCents(document.closingMicros),
    ts_created: isoSeconds(document.createdAt),
  };
}

export const PdfResponse = {
  description: 'the document as a PDF',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** The PDF answer of a download: its media type and a file name to save it as. */
export function sendPdf(
  reply: { header(name: string, value: string): unknown },
  file: { filename: string; pdf: Buffer },
) {
  reply.header('content-type', 'application/pdf');
  reply.header('content-disposition', `attachment; filename="${file.filename}"`);
  return file.pdf;
}

export function documentRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/document/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listDocuments',
      summary: 'List invoice documents',
      description:
        "Extension. The account's monthly invoice documents, newest first: one per month with activity, issued on the first of the next month (and mailed with the PDF attached).",
      tags,
      response: responses({ 200: Type.Object({ documents: Type.Array(InvoiceDocument), meta: PageMeta }) }, [401, 429]),
    },
    handler: async (request) => {
      const { documents, meta } = await accountDocuments(ctx, actorOf(request));
      return { documents: documents.map(invoiceDocumentObject), meta };
    },
  });

  app.route({
    method: 'GET',
    url: '/document/download/:id',
    config: { access: 'account' },
    schema: {
      operationId: 'downloadDocument',
      summary: 'Download an invoice document',
      description:
        "Extension. The PDF of one of the account's invoice documents, as issued. 404 for another account's.",
      tags,
      params: Type.Object({ id: PathRef }),
      response: { ...responses({}, [400, 401, 404, 429]), 200: PdfResponse },
    },
    handler: async (request, reply) => {
      const ref = parseRef(request.params.id);
      if (!ref || !('id' in ref)) throw new NotFound('document');
      return sendPdf(reply, await documentPdf(ctx, ref.id, actorOf(request).accountId));
    },
  });
}
