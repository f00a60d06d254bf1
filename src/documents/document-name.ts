// How a document is named: its number as printed (six digits) and its PDF's file name.

export function documentNumberText(number: number): string {
  return String(number).padStart(6, '0');
}

export function documentFilename(number: number, period: string): string {
  return `invoice-${documentNumberText(number)}-${period}.pdf`;
}
