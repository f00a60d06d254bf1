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

/** A cell of a table row: its text, where it is anchored, and which side it is aligned to. */
type Cell = [text: string, x: number, align: 'left' | 'right'];

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
  const row = (cells: Cell[], bold = false) => {
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
  /** A table: its header in bold, then one row a line, each text under its column; `none` when it has no line. */
  const table = (columns: Cell[], lines: string[][], none: string) => {
    row(columns, true);
    for (const line of lines) row(columns.map(([, x, align], index) => [line[index], x, align]));
    if (lines.length === 0) pdf.font('Helvetica').fontSize(9).text(none, left);
    pdf.moveDown(0.3);
  };
  /** A labelled amount: the label at `labelX`, the amount right-aligned. */
  const amountRow = (label: string, labelX: number, amount: string, bold = false) =>
    row(
      [
        [label, labelX, 'left'],
        [amount, right, 'right'],
      ],
      bold,
    );
  const heading = (text: string) => {
    pdf.moveDown(0.8).font('Helvetica-Bold').fontSize(11).text(text, left);
    pdf.moveDown(0.3);
  };

  pdf
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(`Invoice ${documentNumberText(content.number)}`, left);
  pdf.font('Helvetica').fontSize(10);
  pdf.text(`Invoice number: ${documentNumberText(content.number)}`);
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
  table(
    [
      ['Started', left, 'left'],
      ['Item', left + 110, 'left'],
      ['Amount', right, 'right'],
    ],
    content.usageLines.map((line) => [line.date, line.description, line.amount]),
    'No usage this month.',
  );
  for (const [type, amount] of content.usageByType) amountRow(`Subtotal ${type}`, left + 110, amount);
  amountRow('Usage total', left + 110, content.usageTotal, true);
  if (content.commitTotal !== null) amountRow('Charges paid up front (commit)', left + 110, content.commitTotal);

  heading('Payments');
  table(
    [
      ['Date', left, 'left'],
      ['Payment', left + 70, 'left'],
      ['Net', right - 200, 'right'],
      ['VAT', right - 100, 'right'],
      ['Gross', right, 'right'],
    ],
    content.payments.map((line) => [
      line.date,
      line.description,
      line.amount,
      `${line.vat} (${line.vatRate}%)`,
      line.gross,
    ]),
    'No payments this month.',
  );
  amountRow('Payments net', left + 70, content.paymentsNet, true);
  amountRow('VAT', left + 70, content.tax, true);
  amountRow('Payments gross', left + 70, content.paymentsGross, true);

  heading('Balance');
  amountRow('Balance carried over', left, content.opening);
  amountRow('Payments net', left, content.paymentsNet);
  amountRow('Usage', left, content.usageTotal === '0.00' ? '0.00' : `-${content.usageTotal}`);
  if (content.commitTotal !== null) amountRow('Charges paid up front', left, content.commitTotal);
  amountRow('Balance at month end', left, content.closing, true);
  pdf.moveDown(1).font('Helvetica').fontSize(8);
  pdf.text(
    'Prepaid account: VAT is charged on payments when they are made, at the rate of the customer country. Usage is drawn from the prepaid balance.',
    left,
  );
  pdf.end();
  return done;
}
