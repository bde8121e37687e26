// The MCP Apps host of the reviewer's report (`mcp-variants demo`): each view row of the report is
// an iframe, and this script gives it the real ui:// view and the io.modelcontextprotocol/ui
// output the demo's host router delivered to the view sink, through the official AppBridge.
//
// The report is one static file with no server behind it, so:
// * the views' HTML is embedded in the report (gzip, base64) and put into the iframe as srcdoc;
//   the iframe is sandboxed without allow-same-origin (an opaque origin) and inherits the
//   report's Content-Security-Policy, which allows no network at all;
// * no sandbox proxy: MCP Apps asks web hosts for one to give the view its own origin and CSP,
//   which a srcdoc iframe without allow-same-origin already has;
// * the host advertises no serverTools: a view cannot call a tool (the views then show no pager).
//
// The report starts this script through `window.mcpVariantsReportHost.start(inflate)` once its
// small inline loader has inflated it. State for tests and people: `data-state` on each iframe
// ("loading", "delivered" or "error") and `data-views` on <body> ("ready" or "error").
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { inlineHostContext } from "../src/host-context";

/** What the report embeds for one view row (a JSON script element named by the iframe's data-payload). */
interface ViewRow {
  uri: string;
  embed: string; // id of the script element holding the view's HTML (gzip, base64)
  tool: Tool; // the tool as tools/list listed it
  arguments: Record<string, unknown>;
  toolResult: CallToolResult; // the ui output, exactly as the view sink received it
}

type Inflate = (id: string) => Promise<string>;

declare global {
  interface Window {
    mcpVariantsReportHost: { start(inflate: Inflate): Promise<void> };
  }
}

const HOST_INFO = { name: "mcp-variants report", version: "0.1.0" };
const MAX_HEIGHT = 560;

function payload(frame: HTMLIFrameElement): ViewRow {
  const element = document.getElementById(frame.dataset.payload ?? "");
  if (!element?.textContent) throw new Error(`no payload ${frame.dataset.payload}`);
  return JSON.parse(element.textContent) as ViewRow;
}

async function mount(frame: HTMLIFrameElement, html: (id: string) => Promise<string>): Promise<void> {
  const row = payload(frame);
  const bridge = new AppBridge(null, HOST_INFO, {}, { hostContext: inlineHostContext(row.tool, MAX_HEIGHT) });
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.min(Math.ceil(height), MAX_HEIGHT)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  // Listen before the view exists: its first message is ui/initialize.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = await html(row.embed);
  await initialized;
  await bridge.sendToolInput({ arguments: row.arguments });
  await bridge.sendToolResult(row.toolResult);
  frame.dataset.state = "delivered";
}

async function start(inflate: Inflate): Promise<void> {
  const cache = new Map<string, Promise<string>>();
  const html = (id: string): Promise<string> => {
    if (!cache.has(id)) cache.set(id, inflate(id));
    return cache.get(id)!;
  };
  const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>("iframe.view"));
  const results = await Promise.allSettled(
    frames.map((frame) =>
      mount(frame, html).catch((error: unknown) => {
        frame.dataset.state = "error";
        frame.insertAdjacentText("afterend", `The view could not be shown: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }),
    ),
  );
  document.body.dataset.views = results.every((r) => r.status === "fulfilled") ? "ready" : "error";
}

window.mcpVariantsReportHost = { start };
