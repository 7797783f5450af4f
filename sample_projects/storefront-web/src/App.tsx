import { lazy, Suspense, useState } from "react";
import { Link, Route, Routes } from "react-router-dom";
import { ProductGrid } from "./catalog/ProductGrid";
import { CartDrawer } from "./cart/CartDrawer";
import { useCart } from "./cart/cartStore";

// Checkout is loaded on demand: most visitors never reach it.
const CheckoutForm = lazy(() => import("./checkout/CheckoutForm"));

export function App() {
  const [cartOpen, setCartOpen] = useState(false);
  const { itemCount } = useCart();

  return (
    <div className="app">
      <header className="app-header">
        <Link to="/" className="brand">
          Northwind Goods
        </Link>
        <nav>
          <Link to="/c/all">Shop</Link>
          <button type="button" onClick={() => setCartOpen(true)} aria-label={`Cart, ${itemCount} items`}>
            Cart ({itemCount})
          </button>
        </nav>
      </header>

      <main>
        <Routes>
          <Route path="/" element={<ProductGrid category="featured" />} />
          <Route path="/c/:category" element={<ProductGrid />} />
          <Route
            path="/checkout"
            element={
              <Suspense fallback={<p>Loading checkout…</p>}>
                <CheckoutForm />
              </Suspense>
            }
          />
          <Route path="*" element={<p>Page not found.</p>} />
        </Routes>
      </main>

      <CartDrawer open={cartOpen} onClose={() => setCartOpen(false)} />
    </div>
  );
}
