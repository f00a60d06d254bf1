// Renders a monthly invoice document as a PDF with pdfkit (its built-in Helvetica, so the text is
// extractable and the file self-contained). Pure: the same content gives the same bytes (the
// PDF's dates are the document's own, not the time of rendering).

import type PDFKit from 'pdfkit';
import type { Seller } from '../billing/billing-settings.ts';
import { documentNumberText } from './document-name.ts';

export interface DocumentLine {
  date: string;
  description: string;
  amount: string;
}

export interface PaymentLine extends DocumentLine {
  vatRate: string;
  vat: string;
  gross: string;
}

export interface DocumentContent {
  number: number;
  period: string;
  periodStart: string;
  periodEnd: string;
  issued: Date;
  seller: Seller;
  customer: { name: string; email: string; country: string; accountId: number };
  usageLines: DocumentLine[];
  usageByType: [string, string][];
  usageTotal: string;
  commitTotal: string | null;
  payments: PaymentLine[];
  paymentsNet: string;
  tax: string;
  paymentsGross: string;
  opening: string;
  closing: string;
}

export async function renderDocumentPdf(content: DocumentContent): Promise<Buffer> {
  // pdfkit and its fonts load with the first document, not at every start: this module is itself
  // loaded on first use, but the prebuilt server (scripts/bundle.ts) inlines it.
  const { default: PDFDocument } = (await import('pdfkit')) as { default: typeof PDFKit };
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 48,
    info: {
      Title: `Invoice ${documentNumberText(content.number)} (${content.period})`,
      Author: content.seller.name,
      CreationDate: content.issued,
      ModDate: content.issued,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const left = 48;
  const right = pdf.page.width - 48;
  const row = (cells: [string, number, 'left' | 'right'][], bold = false) => {
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const y = pdf.y;
    let lowest = y;
    for (const [text, x, align] of cells) {
      const width = align === 'right' ? 90 : 230;
      pdf.text(text, align === 'right' ? x - width : x, y, { width, align });
      lowest = Math.max(lowest, pdf.y);
    }
    pdf.x = left;
    pdf.y = lowest + 2;
  };
  const heading = (text: string) => {
    pdf.moveDown(0.8).font('Helvetica-Bold').fontSize(11).text(text, left);
    pdf.moveDown(0.3);
  };

  pdf
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(`Invoice ${documentNumberText(content.number)}`, left);
  pdf.font('Helvetica').fontSize(10);
  pdf.text(`Invoice number: ${content.number}`);
  pdf.text(`Period: ${content.period} (${content.periodStart} to ${content.periodEnd})`);
  pdf.text(`Issued: ${content.issued.toISOString().slice(0, 10)}`);
  pdf.text('Currency: USD');

  heading('Seller');
  pdf.font('Helvetica').fontSize(10).text(content.seller.name);
  for (const line of content.seller.address) pdf.text(line);
  if (content.seller.vat_id) pdf.text(`VAT id: ${content.seller.vat_id}`);
  if (content.seller.email) pdf.text(content.seller.email);

  heading('Customer');
  pdf.font('Helvetica').fontSize(10).text(content.customer.name);
  pdf.text(content.customer.email);
  pdf.text(`Country: ${content.customer.country}`);
  pdf.text(`Account: ${content.customer.accountId}`);

  heading('Usage (invoice items)');
  row(
    [
      ['Started', left, 'left'],
      ['Item', left + 110, 'left'],
      ['Amount', right, 'right'],
    ],
    true,
  );
  for (const line of content.usageLines)
    row([
      [line.date, left, 'left'],
      [line.description, left + 110, 'left'],
      [line.amount, right, 'right'],
    ]);
  if (content.usageLines.length === 0) pdf.font('Helvetica').fontSize(9).text('No usage this month.', left);
  pdf.moveDown(0.3);
  for (const [type, amount] of content.usageByType)
    row([
      [`Subtotal ${type}`, left + 110, 'left'],
      [amount, right, 'right'],
    ]);
  row(
    [
      ['Usage total', left + 110, 'left'],
      [content.usageTotal, right, 'right'],
    ],
    true,
  );
  if (content.commitTotal !== null)
    row([
      ['Charges paid up front (commit)', left + 110, 'left'],
      [content.commitTotal, right, 'right'],
    ]);

  heading('Payments');
  row(
    [
      ['Date', left, 'left'],
      ['Payment', left + 70, 'left'],
      ['Net', right - 200, 'right'],
      ['VAT', right - 100, 'right'],
      ['Gross', right, 'right'],
    ],
    true,
  );
  for (const line of content.payments)
    row([
      [line.date, left, 'left'],
      [line.description, left + 70, 'left'],
      [line.amount, right - 200, 'right'],
      [`${line.vat} (${line.vatRate}%)`, right - 100, 'right'],
      [line.gross, right, 'right'],
    ]);
  if (content.payments.length === 0) pdf.font('Helvetica').fontSize(9).text('No payments this month.', left);
  pdf.moveDown(0.3);
  row(
    [
      ['Payments net', left + 70, 'left'],
      [content.paymentsNet, right, 'right'],
    ],
    true,
  );
  row(
    [
      ['VAT', left + 70, 'left'],
      [content.tax, right, 'right'],
    ],
    true,
  );
  row(
    [
      ['Payments gross', left + 70, 'left'],
      [content.paymentsGross, right, 'right'],
    ],
    true,
  );

  heading('Balance');
  row([
    ['Balance carried over', left, 'left'],
    [content.opening, right, 'right'],
  ]);
  row([
    ['Payments net', left, 'left'],
    [content.paymentsNet, right, 'right'],
  ]);
  row([
    ['Usage', left, 'left'],
    [content.usageTotal === '0.00' ? '0.00' : `-${content.usageTotal}`, right, 'right'],
  ]);
  if (content.commitTotal !== null)
    row([
      ['Charges paid up front', left, 'left'],
      [content.commitTotal, right, 'right'],
    ]);
  row(
    [
      ['Balance at month end', left, 'left'],
      [content.closing, right, 'right'],
    ],
    true,
  );
  pdf.moveDown(1).font('Helvetica').fontSize(8);
  pdf.text(
    'Prepaid account: VAT is charged on payments when they are made, at the rate of the customer country. Usage is drawn from the prepaid balance.',
    left,
  );
  pdf.end();
  return done;
}
