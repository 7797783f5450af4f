import { useEffect, useState, type FormEvent } from "react";
import { useNavigate } from "react-router-dom";
import { ApiError, request } from "../lib/http";
import { formatPrice } from "../lib/money";
import { useCart } from "../cart/cartStore";
import { isValid, validateAddress, type Address, type FieldErrors } from "./addressValidation";
import { mountCardFields, tokenizeCard, unmountCardFields } from "./paymentClient";

const EMPTY: Address = { fullName: "", line1: "", city: "", postalCode: "", country: "US" };

export default function CheckoutForm() {
  const { cart, totals, refresh } = useCart();
  const navigate = useNavigate();
  const [address, setAddress] = useState<Address>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);

  useEffect(() => {
    mountCardFields("#card-fields", navigator.language).catch(() => setFormError("Payment is unavailable right now."));
    return () => unmountCardFields();
  }, []);

  function update<K extends keyof Address>(key: K, value: Address[K]) {
    setAddress((a) => ({ ...a, [key]: value }));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const found = validateAddress(address);
    setErrors(found);
    if (!isValid(found) || !cart) return;
    setSubmitting(true);
    setFormError(null);
    try {
      const paymentToken = await tokenizeCard();
      const order = await request<{ id: string }>("/api/orders", {
        method: "POST",
        body: { cartId: cart.id, shippingAddress: address, paymentToken },
      });
      await refresh();
      navigate(`/orders/${encodeURIComponent(order.id)}`);
    } catch (err) {
      setFormError(err instanceof ApiError ? err.message : "Something went wrong. Your card was not charged.");
    } finally {
      setSubmitting(false);
    }
  }

  if (!cart || cart.lines.length === 0) return <p>Your cart is empty.</p>;

  return (
    <form className="checkout" onSubmit={onSubmit} noValidate>
      <h1>Checkout</h1>
      <fieldset>
        <legend>Shipping address</legend>
        <label>
          Full name
          <input value={address.fullName} onChange={(e) => update("fullName", e.target.value)} autoComplete="name" />
        </label>
        {errors.fullName && <span className="field-error">{errors.fullName}</span>}
        <label>
          Address
          <input value={address.line1} onChange={(e) => update("line1", e.target.value)} autoComplete="address-line1" />
        </label>
        <label>
          City
          <input value={address.city} onChange={(e) => update("city", e.target.value)} autoComplete="address-level2" />
        </label>
        <label>
          Postal code
          <input value={address.postalCode} onChange={(e) => update("postalCode", e.target.value)} autoComplete="postal-code" />
        </label>
        {errors.postalCode && <span className="field-error">{errors.postalCode}</span>}
      </fieldset>
      <fieldset>
        <legend>Payment</legend>
        <div id="card-fields" />
      </fieldset>
      {totals && <p className="order-total">Total: {formatPrice(totals.total)}</p>}
      {formError && <p role="alert">{formError}</p>}
      <button type="submit" disabled={submitting}>
        {submitting ? "Placing order…" : "Place order"}
      </button>
    </form>
  );
}
