// Translate between URL search params and the ProductQuery used by the API.
// The URL is the source of truth for filters so that pages can be shared.

import type { ProductQuery } from "./productApi";

const SORTS = new Set<ProductQuery["sort"]>(["relevance", "price_asc", "price_desc", "newest"]);

function intOrUndefined(raw: string | null): number | undefined {
  if (raw === null || raw === "") return undefined;
  const n = Number.parseInt(raw, 10);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

export function queryFromSearchParams(params: URLSearchParams, category?: string): ProductQuery {
  const sortRaw = params.get("sort") as ProductQuery["sort"];
  return {
    category,
    q: params.get("q") ?? undefined,
    sort: SORTS.has(sortRaw) ? sortRaw : "relevance",
    minPrice: intOrUndefined(params.get("min")),
    maxPrice: intOrUndefined(params.get("max")),
    inStockOnly: params.get("stock") === "1",
  };
}

export function searchParamsFromQuery(query: ProductQuery): URLSearchParams {
  const out = new URLSearchParams();
  if (query.q) out.set("q", query.q);
  if (query.sort && query.sort !== "relevance") out.set("sort", query.sort);
  if (query.minPrice !== undefined) out.set("min", String(query.minPrice));
  if (query.maxPrice !== undefined) out.set("max", String(query.maxPrice));
  if (query.inStockOnly) out.set("stock", "1");
  return out;
}

export function activeFilterCount(query: ProductQuery): number {
  let n = 0;
  if (query.q) n++;
  if (query.minPrice !== undefined || query.maxPrice !== undefined) n++;
  if (query.inStockOnly) n++;
  return n;
}
