// Analytics event queue. Events are batched and sent with sendBeacon when the
// page is hidden. No personal data: product ids and counts only.

const ENDPOINT = "/api/events";
const MAX_BATCH = 20;
const queue = [];
let consentGiven = false;

export function setConsent(given) {
  consentGiven = Boolean(given);
  if (!consentGiven) queue.length = 0;
}

export function track(name, props = {}) {
  if (!consentGiven) return;
  const safe = {};
  for (const [key, value] of Object.entries(props)) {
    if (key === "__proto__" || key === "constructor") continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      safe[key] = value;
    }
  }
  queue.push({ name, props: safe, ts: Date.now() });
  if (queue.length >= MAX_BATCH) flush();
}

export function flush() {
  if (queue.length === 0) return;
  const batch = queue.splice(0, queue.length);
  const body = JSON.stringify({ events: batch });
  if (!navigator.sendBeacon?.(ENDPOINT, new Blob([body], { type: "application/json" }))) {
    fetch(ENDPOINT, { method: "POST", body, keepalive: true, headers: { "Content-Type": "application/json" } }).catch(
      () => {},
    );
  }
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });
}
