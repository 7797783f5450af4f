import { useEffect, useMemo, useState } from "react";
import { useParams, useSearchParams } from "react-router-dom";
import { ProductCard } from "./ProductCard";
import { fetchProducts, type Product } from "./productApi";
import { queryFromSearchParams } from "./filters";
import { useCart } from "../cart/cartStore";
import imageManifest from "../generated/image-manifest.json";

interface Props {
  category?: string;
}

type Manifest = Record<string, { src: string; width: number; height: number }>;

function imageUrlFor(key: string): string {
  const entry = (imageManifest as Manifest)[key];
  return entry ? entry.src : "/img/placeholder.svg";
}

export function ProductGrid({ category: fixedCategory }: Props) {
  const params = useParams();
  const [searchParams] = useSearchParams();
  const category = fixedCategory ?? params.category ?? "all";
  const query = useMemo(() => queryFromSearchParams(searchParams, category), [searchParams, category]);
  const { addItem } = useCart();

  const [items, setItems] = useState<Product[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    fetchProducts(query, controller.signal)
      .then((page) => {
        setItems(page.items);
        setNext(page.next);
      })
      .catch((err: unknown) => {
        if ((err as Error).name !== "AbortError") setError("Could not load products.");
      })
      .finally(() => setLoading(false));
    return () => controller.abort();
  }, [query]);

  async function loadMore() {
    if (!next) return;
    const page = await fetchProducts({ ...query, cursor: next });
    setItems((prev) => [...prev, ...page.items]);
    setNext(page.next);
  }

  if (error) return <p role="alert">{error}</p>;
  if (loading && items.length === 0) return <p>Loading…</p>;

  return (
    <section className="product-grid" aria-busy={loading}>
      {items.map((p) => (
        <ProductCard key={p.id} product={p} imageUrl={imageUrlFor(p.imageKey)} onAdd={(id: string) => addItem(id, 1)} />
      ))}
      {next && (
        <button type="button" className="load-more" onClick={loadMore}>
          Show more
        </button>
      )}
    </section>
  );
}
