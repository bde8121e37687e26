// The sandbox proxy (MCP Apps "Sandbox proxy", steps 3 to 7): announce readiness to the host,
// load the view's HTML in an inner iframe (sandboxed, opaque origin; it inherits this
// document's CSP), and relay every message between host and view except the
// `ui/notifications/sandbox-*` ones, which are for this proxy alone.
const PROXY_PREFIX = "ui/notifications/sandbox-";
const hostOrigin = new URLSearchParams(location.search).get("host") ?? "*";
const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts");
inner.setAttribute("title", "MCP App view");

window.addEventListener("message", (event) => {
  const message = event.data as { method?: unknown; params?: { html?: unknown; sandbox?: unknown } } | null;
  const method = typeof message?.method === "string" ? message.method : "";
  if (event.source === window.parent && event.origin === hostOrigin) {
    if (method === "ui/notifications/sandbox-resource-ready") {
      if (typeof message?.params?.sandbox === "string") inner.setAttribute("sandbox", message.params.sandbox);
      inner.srcdoc = String(message?.params?.html ?? "");
      if (!inner.isConnected) document.body.append(inner);
      return;
    }
    if (method.startsWith(PROXY_PREFIX)) return;
    inner.contentWindow?.postMessage(message, "*"); // the view's origin is opaque
  } else if (event.source === inner.contentWindow && inner.contentWindow !== null) {
    if (method.startsWith(PROXY_PREFIX)) return;
    window.parent.postMessage(message, hostOrigin);
  }
});

window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin);
