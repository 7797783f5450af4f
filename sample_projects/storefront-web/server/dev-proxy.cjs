// Development-only reverse proxy used by docker-compose.yml.
// Serves the built SPA and forwards /api to the backend services so that the
// browser sees a single origin (needed for SameSite=Strict cookies).
"use strict";

const path = require("node:path");
const express = require("express");
const { createProxyMiddleware } = require("http-proxy-middleware");

const PORT = Number.parseInt(process.env.PORT ?? "3000", 10);
const CATALOG_URL = process.env.CATALOG_URL ?? "http://catalog:8081";
const ORDERS_URL = process.env.ORDERS_URL ?? "http://orders:8082";
const DIST = path.resolve(__dirname, "..", "dist");

const app = express();
app.disable("x-powered-by");

app.use((req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
  next();
});

app.use("/api/catalog", createProxyMiddleware({ target: CATALOG_URL, changeOrigin: true }));
app.use(["/api/cart", "/api/orders"], createProxyMiddleware({ target: ORDERS_URL, changeOrigin: true }));

app.use(express.static(DIST, { index: false, maxAge: "1h" }));

// SPA fallback: every non-API GET returns index.html.
app.get(/^\/(?!api\/).*/, (_req, res) => {
  res.sendFile(path.join(DIST, "index.html"));
});

app.listen(PORT, () => {
  console.log(`storefront dev proxy listening on :${PORT}`);
});
