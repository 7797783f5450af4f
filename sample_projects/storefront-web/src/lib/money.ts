// Prices are integer minor units (cents). Never use floats for money.

export interface Price {
  amount: number; // minor units, integer
  currency: string; // ISO 4217
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatterFor(currency: string, locale: string): Intl.NumberFormat {
  const key = `${locale}:${currency}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: "currency", currency });
    formatters.set(key, f);
  }
  return f;
}

export function formatPrice(price: Price, locale = navigator.language): string {
  const digits = formatterFor(price.currency, locale).resolvedOptions().maximumFractionDigits ?? 2;
  return formatterFor(price.currency, locale).format(price.amount / 10 ** digits);
}

export function addPrices(a: Price, b: Price): Price {
  if (a.currency !== b.currency) throw new Error(`currency mismatch: ${a.currency} vs ${b.currency}`);
  return { amount: a.amount + b.amount, currency: a.currency };
}

export function multiplyPrice(p: Price, quantity: number): Price {
  if (!Number.isInteger(quantity) || quantity < 0) throw new Error("quantity must be a non-negative integer");
  return { amount: p.amount * quantity, currency: p.currency };
}

export function parseMinorUnits(raw: string): number {
  const n = Number.parseInt(raw, 10);
  if (!Number.isSafeInteger(n)) throw new Error(`invalid amount: ${raw}`);
  return n;
}
