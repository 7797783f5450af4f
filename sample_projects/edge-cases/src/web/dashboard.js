// Operator dashboard for the ingest pipeline: queue depth, accepted and
// rejected counts, and the most recent rejection reasons.

const REFRESH_MS = 5000;

function el(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  return node;
}

async function loadStats() {
  const res = await fetch("/api/ingest/stats", { credentials: "same-origin" });
  if (!res.ok) throw new Error(`stats request failed: ${res.status}`);
  return res.json();
}

function renderStats(root, stats) {
  root.replaceChildren();
  const table = el("table");
  for (const [label, value] of [
    ["Queue depth", stats.queueDepth],
    ["Accepted (1h)", stats.accepted],
    ["Rejected (1h)", stats.rejected],
    ["Dead letters", stats.deadLetters],
  ]) {
    const row = el("tr");
    row.append(el("th", label), el("td", value));
    table.append(row);
  }
  root.append(table);

  const list = el("ul");
  for (const reason of stats.recentErrors.slice(0, 20)) {
    // Reasons contain event data; render as text, never as HTML.
    list.append(el("li", reason));
  }
  root.append(el("h2", "Recent rejections"), list);
}

export function start(root) {
  let timer = null;
  const tick = async () => {
    try {
      renderStats(root, await loadStats());
    } catch (err) {
      root.replaceChildren(el("p", "Stats unavailable."));
      console.warn(err);
    } finally {
      timer = setTimeout(tick, REFRESH_MS);
    }
  };
  tick();
  return () => clearTimeout(timer);
}
