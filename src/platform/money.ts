// Exact money: integer micro-dollars in storage and arithmetic; decimal text at the edges.

export const MICROS_PER_DOLLAR = 1_000_000;

/**
 * The most an account's settled balance may hold either way: a billion dollars. Totals are read
 * back as JavaScript numbers (SQLite's driver refuses an integer past 2^53), so an operator's
 * credit that would take the balance past it is refused, with room to spare for sums.
 */
export const MAX_BALANCE_MICROS = 1_000_000_000 * MICROS_PER_DOLLAR;

/** Parses a decimal amount ("12.5", "-3", "0.000001") into micro-dollars, exactly. */
export function parseMoney(text: string | number): number {
  const raw = typeof text === 'number' ? numberToDecimal(text) : text.trim();
  const match = /^(-)?(\d+)(?:\.(\d{1,6}))?$/.exec(raw);
  if (!match) throw new RangeError(`not a decimal amount with at most 6 decimals: "${raw}"`);
  const [, sign, whole, fraction = ''] = match;
  const micros = Number(whole) * MICROS_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
  if (!Number.isSafeInteger(micros)) throw new RangeError(`amount out of range: "${raw}"`);
  return sign ? -micros : micros;
}

function numberToDecimal(value: number): string {
  // A JSON number like 12.34 arrives as a binary float; its shortest decimal text is what the client meant.
  const text = String(value);
  if (/e/i.test(text)) throw new RangeError(`amount out of range: ${text}`);
  return text;
}

/** Micro-dollars rounded to a whole cent (half away from zero), still in micro-dollars. */
export function roundToCent(micros: number): number {
  return Math.sign(micros) * Math.round(Math.abs(micros) / 10_000) * 10_000;
}

/** Micro-dollars to dollars with cents, rounded half away from zero (for the API's numbers). */
export function toCents(micros: number): number {
  const cents = Math.sign(micros) * Math.round(Math.abs(micros) / 10_000);
  return cents / 100;
}

/** Micro-dollars to a decimal string with the given number of decimals (2 by default). */
export function formatMoney(micros: number, decimals = 2): string {
  const unit = 10 ** (6 - decimals);
  const scaled = Math.sign(micros) * Math.round(Math.abs(micros) / unit);
  const negative = scaled < 0;
  const digits = String(Math.abs(scaled)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return (negative ? '-' : '') + whole + fraction;
}

/** Micro-dollars to a JSON number with up to 6 decimals (for per-hour prices smaller than a cent). */
export function toDollars(micros: number): number {
  return Number(formatMoney(micros, 6));
}
