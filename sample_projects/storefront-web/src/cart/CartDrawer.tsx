import { useEffect, useRef } from "react";
import { Link } from "react-router-dom";
import { formatPrice } from "../lib/money";
import { useCart } from "./cartStore";
import { lineTotal, MAX_QUANTITY_PER_LINE } from "./cartMath";

interface Props {
  open: boolean;
  onClose: () => void;
}

export function CartDrawer({ open, onClose }: Props) {
  const { cart, totals, setQuantity } = useCart();
  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (open) closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, onClose]);

  if (!open) return null;

  return (
    <aside className="cart-drawer" role="dialog" aria-modal="true" aria-label="Shopping cart">
      <button ref={closeRef} type="button" onClick={onClose} aria-label="Close cart">
        ×
      </button>
      {!cart || cart.lines.length === 0 ? (
        <p>Your cart is empty.</p>
      ) : (
        <>
          <ul>
            {cart.lines.map((line) => (
              <li key={line.productId}>
                <span>{line.name}</span>
                <select
                  value={line.quantity}
                  onChange={(e) => setQuantity(line.productId, Number.parseInt(e.target.value, 10))}
                  aria-label={`Quantity for ${line.name}`}
                >
                  {Array.from({ length: MAX_QUANTITY_PER_LINE + 1 }, (_, i) => (
                    <option key={i} value={i}>
                      {i === 0 ? "Remove" : i}
                    </option>
                  ))}
                </select>
                <span>{formatPrice(lineTotal(line))}</span>
              </li>
            ))}
          </ul>
          {totals && (
            <dl className="totals">
              <dt>Subtotal</dt>
              <dd>{formatPrice(totals.subtotal)}</dd>
              <dt>Shipping</dt>
              <dd>{totals.shipping.amount === 0 ? "Free" : formatPrice(totals.shipping)}</dd>
              <dt>Total</dt>
              <dd>{formatPrice(totals.total)}</dd>
            </dl>
          )}
          <Link to="/checkout" onClick={onClose} className="button-primary">
            Checkout
          </Link>
        </>
      )}
    </aside>
  );
}
