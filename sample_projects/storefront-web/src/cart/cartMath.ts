// Pure functions for cart totals. All amounts are integer minor units.

import { addPrices, multiplyPrice, type Price } from "../lib/money";

export interface CartLine {
  productId: string;
  name: string;
  unitPrice: Price;
  quantity: number;
}

export interface CartTotals {
  subtotal: Price;
  discount: Price;
  shipping: Price;
  tax: Price;
  total: Price;
}

export const MAX_QUANTITY_PER_LINE = 20;
export const FREE_SHIPPING_THRESHOLD = 7500; // minor units
export const FLAT_SHIPPING = 695;

export function lineTotal(line: CartLine): Price {
  return multiplyPrice(line.unitPrice, line.quantity);
}

export function subtotal(lines: CartLine[], currency: string): Price {
  return lines.reduce<Price>((acc, line) => addPrices(acc, lineTotal(line)), { amount: 0, currency });
}

export function shippingFor(sub: Price): Price {
  const amount = sub.amount === 0 || sub.amount >= FREE_SHIPPING_THRESHOLD ? 0 : FLAT_SHIPPING;
  return { amount, currency: sub.currency };
}

/** Tax is estimated client-side for display only; the server recomputes it. */
export function estimateTax(taxable: Price, ratePermille: number): Price {
  return { amount: Math.round((taxable.amount * ratePermille) / 1000), currency: taxable.currency };
}

export function computeTotals(lines: CartLine[], currency: string, discountAmount = 0, taxPermille = 0): CartTotals {
  const sub = subtotal(lines, currency);
  const discount: Price = { amount: Math.min(discountAmount, sub.amount), currency };
  const afterDiscount: Price = { amount: sub.amount - discount.amount, currency };
  const shipping = shippingFor(afterDiscount);
  const tax = estimateTax(afterDiscount, taxPermille);
  return {
    subtotal: sub,
    discount,
    shipping,
    tax,
    total: { amount: afterDiscount.amount + shipping.amount + tax.amount, currency },
  };
}

export function clampQuantity(q: number): number {
  if (!Number.isFinite(q)) return 1;
  return Math.max(0, Math.min(MAX_QUANTITY_PER_LINE, Math.trunc(q)));
}
