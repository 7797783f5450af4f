// Cart state. The server owns the cart; this store mirrors it and applies
// optimistic updates that are rolled back when the server disagrees.

import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { request } from "../lib/http";
import { track } from "../lib/analytics.mjs";
import { clampQuantity, computeTotals, type CartLine, type CartTotals } from "./cartMath";

interface ServerCart {
  id: string;
  currency: string;
  lines: CartLine[];
  discountAmount: number;
  couponCode: string | null;
}

interface CartContextValue {
  cart: ServerCart | null;
  totals: CartTotals | null;
  itemCount: number;
  addItem: (productId: string, quantity: number) => Promise<void>;
  setQuantity: (productId: string, quantity: number) => Promise<void>;
  refresh: () => Promise<void>;
}

const CartContext = createContext<CartContextValue | null>(null);

export function CartProvider({ children }: { children: ReactNode }) {
  const [cart, setCart] = useState<ServerCart | null>(null);

  const refresh = useCallback(async () => {
    setCart(await request<ServerCart>("/api/cart"));
  }, []);

  useEffect(() => {
    refresh().catch(() => setCart(null));
  }, [refresh]);

  const addItem = useCallback(async (productId: string, quantity: number) => {
    const updated = await request<ServerCart>("/api/cart/lines", {
      method: "POST",
      body: { productId, quantity: clampQuantity(quantity) },
    });
    setCart(updated);
    track("add_to_cart", { id: productId, quantity });
  }, []);

  const setQuantity = useCallback(
    async (productId: string, quantity: number) => {
      const previous = cart;
      const q = clampQuantity(quantity);
      if (cart) {
        const lines = cart.lines
          .map((l) => (l.productId === productId ? { ...l, quantity: q } : l))
          .filter((l) => l.quantity > 0);
        setCart({ ...cart, lines });
      }
      try {
        setCart(await request<ServerCart>(`/api/cart/lines/${encodeURIComponent(productId)}`, { method: "PATCH", body: { quantity: q } }));
      } catch (err) {
        setCart(previous);
        throw err;
      }
    },
    [cart],
  );

  const value = useMemo<CartContextValue>(() => {
    const totals = cart ? computeTotals(cart.lines, cart.currency, cart.discountAmount) : null;
    const itemCount = cart ? cart.lines.reduce((n, l) => n + l.quantity, 0) : 0;
    return { cart, totals, itemCount, addItem, setQuantity, refresh };
  }, [cart, addItem, setQuantity, refresh]);

  return createElement(CartContext.Provider, { value }, children);
}

export function useCart(): CartContextValue {
  const ctx = useContext(CartContext);
  if (!ctx) throw new Error("useCart must be used inside CartProvider");
  return ctx;
}
