import { request } from "../lib/http";
import type { Price } from "../lib/money";

export interface Product {
  id: string;
  slug: string;
  name: string;
  summary: string;
  price: Price;
  compareAtPrice?: Price;
  imageKey: string;
  categories: string[];
  inStock: boolean;
  rating?: { average: number; count: number };
}

export interface ProductPage {
  items: Product[];
  next: string | null;
  total: number;
}

export interface ProductQuery {
  category?: string;
  q?: string;
  sort?: "relevance" | "price_asc" | "price_desc" | "newest";
  minPrice?: number;
  maxPrice?: number;
  inStockOnly?: boolean;
  cursor?: string | null;
  pageSize?: number;
}

export function buildQueryString(query: ProductQuery): string {
  const params = new URLSearchParams();
  if (query.category && query.category !== "all") params.set("category", query.category);
  if (query.q) params.set("q", query.q.trim().slice(0, 100));
  if (query.sort && query.sort !== "relevance") params.set("sort", query.sort);
  if (query.minPrice !== undefined) params.set("min_price", String(query.minPrice));
  if (query.maxPrice !== undefined) params.set("max_price", String(query.maxPrice));
  if (query.inStockOnly) params.set("in_stock", "1");
  if (query.cursor) params.set("cursor", query.cursor);
  params.set("page_size", String(Math.min(query.pageSize ?? 24, 96)));
  return params.toString();
}

export function fetchProducts(query: ProductQuery, signal?: AbortSignal): Promise<ProductPage> {
  return request<ProductPage>(`/api/catalog/products?${buildQueryString(query)}`, { signal });
}

export function fetchProduct(slug: string, signal?: AbortSignal): Promise<Product> {
  return request<Product>(`/api/catalog/products/${encodeURIComponent(slug)}`, { signal });
}
