// nbformat outputs (the ui variants carry them as mime bundles) drawn as DOM.
//
// Images become <img> with data: URLs (the only kind of image source the views' CSP allows).
// text/html (a pandas DataFrame, say) is rebuilt from an inert parse keeping only table and
// text elements, without attributes that could run or fetch anything.
import { el, stripAnsi, text } from "./common";

const IMAGE_MIMES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

type Output = Record<string, unknown> & { output_type?: string };

function bundleNode(data: Record<string, unknown>): HTMLElement | null {
  for (const mime of IMAGE_MIMES) {
    if (typeof data[mime] === "string" || Array.isArray(data[mime])) {
      const b64 = text(data[mime]).replace(/\s+/g, "");
      return el("img", { src: `data:${mime};base64,${b64}`, alt: text(data["text/plain"]) || mime, "data-mime": mime });
    }
  }
  if (data["image/svg+xml"] !== undefined) {
    const svg = text(data["image/svg+xml"]);
    return el("img", { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`, alt: "SVG image", "data-mime": "image/svg+xml" });
  }
  if (data["text/html"] !== undefined) {
    const node = el("div", { class: "html-output", "data-mime": "text/html" });
    node.append(safeHtml(text(data["text/html"])));
    return node;
  }
  if (data["application/json"] !== undefined) {
    return el("pre", { "data-mime": "application/json" }, JSON.stringify(data["application/json"], null, 2));
  }
  for (const mime of ["text/markdown", "text/latex", "text/plain"]) {
    if (data[mime] !== undefined) return el("pre", { "data-mime": mime }, stripAnsi(text(data[mime])));
  }
  const mimes = Object.keys(data);
  return mimes.length ? el("pre", { class: "muted" }, `[no renderer for ${mimes.join(", ")}]`) : null;
}

export function outputNode(output: Output): HTMLElement | null {
  const kind = output.output_type;
  let prompt = "";
  let body: HTMLElement | null = null;
  let cls = `output output-${kind}`;
  if (kind === "stream") {
    const name = String(output.name ?? "stdout");
    cls += ` stream-${name}`;
    body = el("pre", {}, stripAnsi(text(output.text)));
  } else if (kind === "error") {
    const trace = Array.isArray(output.traceback) ? output.traceback.map((l) => stripAnsi(String(l))).join("\n") : "";
    body = el("pre", {}, trace || `${text(output.ename)}: ${text(output.evalue)}`);
  } else if (kind === "execute_result" || kind === "display_data") {
    const data = (output.data ?? {}) as Record<string, unknown>;
    body = bundleNode(data);
    if (kind === "execute_result") prompt = `Out[${output.execution_count ?? " "}]:`;
  }
  if (!body) return null;
  return el("div", { class: cls }, el("div", { class: "prompt" }, prompt), el("div", { class: "body" }, body));
}

export function outputsNode(outputs: unknown): HTMLElement {
  const list = el("div", { class: "outputs" });
  for (const output of Array.isArray(outputs) ? outputs : []) {
    const node = typeof output === "object" && output !== null ? outputNode(output as Output) : null;
    if (node) list.append(node);
  }
  return list;
}

// ---- text/html, rebuilt from an inert parse ---------------------------------------------------

const KEEP = new Set([
  "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
  "div", "span", "p", "br", "hr", "b", "i", "strong", "em", "code", "pre", "small", "sub", "sup",
  "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
]);
const DROP = new Set(["script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math", "link", "meta", "base", "form"]);
const ATTRS = new Set(["colspan", "rowspan"]);

function rebuild(node: Node, into: Node): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) {
      into.appendChild(document.createTextNode(child.textContent ?? ""));
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const source = child as Element;
      const tag = source.tagName.toLowerCase();
      if (DROP.has(tag)) continue;
      if (!KEEP.has(tag)) {
        rebuild(source, into); // unknown element: keep its text, not the element
        continue;
      }
      const copy = document.createElement(tag);
      for (const attr of Array.from(source.attributes)) {
        if (ATTRS.has(attr.name) && /^\d{1,3}$/.test(attr.value)) copy.setAttribute(attr.name, attr.value);
      }
      rebuild(source, copy);
      into.appendChild(copy);
    }
  }
}

export function safeHtml(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(html, "text/html"); // inert: nothing runs or loads
  const fragment = document.createDocumentFragment();
  rebuild(parsed.body, fragment);
  return fragment;
}
