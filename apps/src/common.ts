// What every view shares: the App connection, what the view received, how a result is read.
//
// A view receives `ui/notifications/tool-result` in one of two shapes:
//
// * 2026-12-01 and later (SEP-3279): the `io.modelcontextprotocol/ui` output alone,
//   `{audience, format: "structured", structuredContent, isError?}`. Nothing else of the
//   result: no assistant output, no result `_meta`. It parses as a CallToolResult (the SDK
//   defaults `content` to []), so the App SDK accepts it as it is.
// * before 2026-12-01: the legacy CallToolResult, as MCP Apps 2026-01-26 defines it. There is
//   no view data at those versions: `structuredContent` is the tool's assistant/structured
//   value. The view shows it as a fallback (see renderLegacy) and never mistakes it for view data.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import type { CallToolResult } from "@modelcontextprotocol/client";

export const UI_AUDIENCE = "io.modelcontextprotocol/ui";

/** View data as the server's ui schemas declare it (variants/*.json, discriminated by `view`). */
export type UiData = { view: string; [key: string]: unknown };
export type UiError = { error: { type: string; message: string; traceback?: string[] }; outputs?: unknown[] };

export type Received =
  | { kind: "ui"; data: UiData; isError: false }
  | { kind: "ui-error"; data: UiError; isError: true }
  | { kind: "legacy"; result: CallToolResult };

/** Everything the host sent this view, kept for inspection (tests read it; so can a person). */
export interface ViewRecord {
  messages: unknown[]; // every postMessage from the host, raw, in order
  toolInputs: unknown[];
  toolResults: unknown[]; // as the App SDK handed them to ontoolresult
  renders: number;
  mode: string | null; // "ui", "ui-error" or "legacy": how the last result was read
}

declare global {
  interface Window {
    mcpVariantsView: ViewRecord;
  }
}

export const record: ViewRecord = { messages: [], toolInputs: [], toolResults: [], renders: 0, mode: null };
window.mcpVariantsView = record;
window.addEventListener("message", (event) => {
  if (event.source === window.parent) record.messages.push(event.data);
});

const KNOWN_VIEWS = new Set(["table", "execution", "notebook", "cell"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How to read a tool result (or the result of a call the view made itself). */
export function classify(result: CallToolResult): Received {
  const r = result as CallToolResult & { audience?: unknown; format?: unknown };
  const sc = r.structuredContent;
  const isUiOutput = r.audience === UI_AUDIENCE && r.format === "structured";
  // A host may also wrap the ui output in a reduced CallToolResult without audience/format:
  // accepted when the value is one of our view shapes (legacy values never carry `view`).
  if (isUiOutput || (r.audience === undefined && isObject(sc) && KNOWN_VIEWS.has(String(sc.view)))) {
    if (r.isError === true && isObject(sc) && isObject(sc.error)) {
      return { kind: "ui-error", data: sc as unknown as UiError, isError: true };
    }
    if (isObject(sc) && typeof sc.view === "string") return { kind: "ui", data: sc as UiData, isError: false };
  }
  return { kind: "legacy", result };
}

// ---- DOM helpers ------------------------------------------------------------------------------

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function text(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join("");
  return value === null || value === undefined ? "" : String(value);
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
export function stripAnsi(value: string): string {
  return value.replace(ANSI, "");
}

export function setSubtitle(value: string): void {
  const node = document.getElementById("subtitle");
  if (node) node.textContent = value;
}

export function root(): HTMLElement {
  return document.getElementById("root")!;
}

export function showError(message: string, traceback?: string[]): HTMLElement {
  const banner = el("div", { class: "banner error", role: "alert" }, message);
  if (traceback && traceback.length) banner.append(el("pre", {}, stripAnsi(traceback.join("\n"))));
  return banner;
}

// ---- the legacy fallback ---------------------------------------------------------------------

/** A legacy CallToolResult (before 2026-12-01): a rows-shaped structuredContent becomes a
 * table; otherwise the content blocks are shown as they are (text, images). */
export function renderLegacy(result: CallToolResult, into: HTMLElement): void {
  into.append(
    el(
      "p",
      { class: "note legacy-note" },
      "Shown from the tool's legacy result: this protocol version has no view output (SEP-3279 starts at 2026-12-01).",
    ),
  );
  if (result.isError) into.append(showError("The tool reported an error."));
  const sc = result.structuredContent as Record<string, unknown> | undefined;
  if (!result.isError && isObject(sc) && Array.isArray(sc.columns) && Array.isArray(sc.items)) {
    const columns = sc.columns.map(String);
    const table = el("table", { class: "data legacy" });
    table.append(el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {}, c)))));
    const body = el("tbody");
    for (const item of sc.items) {
      const row = isObject(item) ? item : {};
      body.append(el("tr", {}, ...columns.map((c) => el("td", {}, text(row[c])))));
    }
    table.append(body);
    into.append(table);
    return;
  }
  const blocks = el("div", { class: "outputs legacy" });
  for (const block of result.content ?? []) {
    if (block.type === "text") blocks.append(el("div", { class: "output" }, el("div"), el("pre", { class: "body" }, block.text)));
    else if (block.type === "image")
      blocks.append(
        el("div", { class: "output output-image" }, el("div"), el("img", { src: `data:${block.mimeType};base64,${block.data}`, alt: "image" })),
      );
    else blocks.append(el("div", { class: "output" }, el("div"), el("pre", { class: "body muted" }, `[${block.type} block]`)));
  }
  into.append(blocks);
}

// ---- the App -------------------------------------------------------------------------------------

export interface ViewHandlers {
  /** Draw view data (or a ui error) into `into`; called for every tool result. */
  render(received: Exclude<Received, { kind: "legacy" }>, into: HTMLElement): void;
}

export interface ViewContext {
  app: App;
  arguments: Record<string, unknown>;
  toolName(): string | undefined;
  canCallTools(): boolean;
  /** Call a tool of our server through the host and draw its result in place. */
  call(name: string, args: Record<string, unknown>): Promise<void>;
}

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
}

export function startView(name: string, makeHandlers: (view: ViewContext) => ViewHandlers): ViewContext {
  const app = new App({ name: `mcp-variants ${name} view`, version: "0.1.0" }, {}, { autoResize: true });
  let busy = false;

  const view: ViewContext = {
    app,
    arguments: {},
    toolName: () => app.getHostContext()?.toolInfo?.tool.name,
    canCallTools: () => Boolean(app.getHostCapabilities()?.serverTools),
    async call(tool, args) {
      if (busy) return;
      busy = true;
      document.body.dataset.state = "loading";
      try {
        show(await app.callServerTool({ name: tool, arguments: args }));
      } catch (error) {
        const into = root();
        into.prepend(showError(`${tool} failed: ${error instanceof Error ? error.message : String(error)}`));
        document.body.dataset.state = "error";
      } finally {
        busy = false;
      }
    },
  };
  const handlers = makeHandlers(view);

  function show(result: CallToolResult): void {
    const received = classify(result);
    record.mode = received.kind;
    const into = root();
    into.replaceChildren();
    if (received.kind === "legacy") renderLegacy(received.result, into);
    else handlers.render(received, into);
    record.renders += 1;
    document.body.dataset.mode = received.kind;
    document.body.dataset.renders = String(record.renders);
    document.body.dataset.state = "rendered";
    window.scrollTo(0, 0); // a new result starts at its top (after a pager click, say)
  }

  app.ontoolinput = (params) => {
    record.toolInputs.push(params);
    view.arguments = { ...(params.arguments ?? {}) };
  };
  app.ontoolresult = (result) => {
    record.toolResults.push(result);
    show(result);
  };
  app.ontoolcancelled = (params) => {
    root().replaceChildren(showError(`The tool call was cancelled${params.reason ? `: ${params.reason}` : "."}`));
    document.body.dataset.state = "cancelled";
  };
  app.onhostcontextchanged = (ctx) => applyContext(ctx);
  app.onteardown = async () => ({});
  app
    .connect()
    .then(() => {
      applyContext(app.getHostContext());
      const tool = view.toolName();
      if (tool) setSubtitle(tool);
      if (document.body.dataset.state === "waiting") document.body.dataset.state = "connected";
    })
    .catch((error: unknown) => {
      root().replaceChildren(showError(`Could not connect to the host: ${error instanceof Error ? error.message : String(error)}`));
      document.body.dataset.state = "error";
    });
  return view;
}
