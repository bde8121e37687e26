// The host page of the browser tests: the host side of MCP Apps, with the official AppBridge.
//
// The tool call itself is made by the Python side (tests/apps/harness.py) through our
// reference client (mcp_variants.client, Apps mode) against the real server; this page
// asks for it, shows what went to the model as a chat turn, loads the view's HTML (from
// resources/read) through a sandbox proxy on another origin, and hands the view exactly the
// `tool_result` the Python host built from the router's view sink. Calls the view makes
// (tools/call) go back to the Python host, which applies the visibility rules.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { inlineHostContext } from "../src/host-context";

interface Block {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}

interface HostCall {
  version: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  model: Block[];
  view: { uri: string; html: string; csp: Record<string, string[]> } | null;
  toolResult: CallToolResult | null;
}

interface HostLog {
  call: Omit<HostCall, "view"> | null;
  sent: { method: string; params: unknown }[];
  viewCalls: { request: unknown; response: unknown }[];
  events: string[];
}

declare global {
  interface Window {
    hostLog: HostLog;
  }
}

const log: HostLog = { call: null, sent: [], viewCalls: [], events: [] };
window.hostLog = log;
const query = new URLSearchParams(location.search);
const main = document.getElementById("main")!;

function node(tag: string, cls: string, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  element.className = cls;
  element.append(...children);
  return element;
}

function turn(who: string, ...children: (Node | string)[]): void {
  main.append(node("div", "turn", node("div", "who", who), ...children));
}

async function post(path: string, body: unknown): Promise<any> {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return response.json();
}

function waitForSandbox(iframe: HTMLIFrameElement, origin: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (event: MessageEvent) => {
      if (event.source === iframe.contentWindow && event.origin === origin && event.data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
}

async function run(): Promise<void> {
  const scenario = query.get("scenario") ?? "";
  const sandboxOrigin = query.get("sandbox") ?? "";
  const call: HostCall = await post(`/api/call/${encodeURIComponent(scenario)}`, {});
  const { view, ...rest } = call;
  log.call = rest;
  document.getElementById("version")!.textContent = `protocol ${call.version} · ${call.tool.name}`;

  turn("Tool call (made by the reference client, Apps mode)", node("pre", "", `${call.tool.name}(${JSON.stringify(call.arguments)})`));
  const model = node("div", "");
  for (const block of call.model) {
    if (block.type === "text") model.append(node("pre", "", block.text ?? ""));
    else if (block.type === "image") {
      const img = document.createElement("img");
      img.src = `data:${block.mimeType};base64,${block.data}`;
      model.append(img);
    } else model.append(node("pre", "", `[${block.type}]`));
  }
  turn("Model context (assistant/content)", model);

  if (!view || !call.toolResult) {
    turn("View", "No view for this call.");
    document.body.dataset.state = "no-view";
    return;
  }

  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
  frame.setAttribute("title", view.uri);
  main.append(node("div", "frame", node("div", "who", `View ${view.uri}: receives the io.modelcontextprotocol/ui output only`), frame));
  const ready = waitForSandbox(frame, sandboxOrigin);
  const sandboxUrl = new URL("/sandbox.html", sandboxOrigin);
  sandboxUrl.searchParams.set("host", location.origin);
  sandboxUrl.searchParams.set("csp", JSON.stringify(view.csp ?? {}));
  frame.src = sandboxUrl.href;
  await ready;
  log.events.push("sandbox-ready");

  const hostContext = inlineHostContext(call.tool, 4000);
  const bridge = new AppBridge(null, { name: "mcp-variants test host", version: "0.1.0" }, { serverTools: {}, logging: {} }, { hostContext });
  bridge.oncalltool = async (params) => {
    const answer = await post(`/api/view-call/${encodeURIComponent(scenario)}`, params);
    log.viewCalls.push({ request: params, response: answer });
    if (answer.error) throw new Error(answer.error.message);
    return answer.result as CallToolResult;
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onloggingmessage = (params) => log.events.push(`log: ${JSON.stringify(params.data)}`);
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });

  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: view.html, csp: view.csp });
  await initialized;
  log.events.push("view-initialized");

  const input = { arguments: call.arguments };
  log.sent.push({ method: "ui/notifications/tool-input", params: input });
  await bridge.sendToolInput(input);
  log.sent.push({ method: "ui/notifications/tool-result", params: call.toolResult });
  await bridge.sendToolResult(call.toolResult);
  document.body.dataset.state = "delivered";
}

run().catch((error: unknown) => {
  turn("Host error", node("pre", "", error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)));
  document.body.dataset.state = "error";
});
