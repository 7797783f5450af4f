// Presentational card. Kept as plain JSX because the design team edits it
// directly; type information comes from JSDoc.
import { formatPrice } from "../lib/money";
import { track } from "../lib/analytics.mjs";

/**
 * @param {{ product: import("./productApi").Product, imageUrl: string, onAdd: (id: string) => void }} props
 */
export function ProductCard({ product, imageUrl, onAdd }) {
  const onSale = product.compareAtPrice && product.compareAtPrice.amount > product.price.amount;

  return (
    <article className="product-card" data-product-id={product.id}>
      <a href={`/p/${encodeURIComponent(product.slug)}`} onClick={() => track("product_click", { id: product.id })}>
        <img src={imageUrl} alt={product.name} loading="lazy" width="320" height="320" />
        <h3>{product.name}</h3>
      </a>
      <p className="summary">{product.summary}</p>
      <p className="price">
        {onSale && <s className="compare-at">{formatPrice(product.compareAtPrice)}</s>}
        <span>{formatPrice(product.price)}</span>
      </p>
      {product.rating && (
        <p className="rating" aria-label={`Rated ${product.rating.average} out of 5`}>
          {"★".repeat(Math.round(product.rating.average))} ({product.rating.count})
        </p>
      )}
      <button type="button" disabled={!product.inStock} onClick={() => onAdd(product.id)}>
        {product.inStock ? "Add to cart" : "Sold out"}
      </button>
    </article>
  );
}
