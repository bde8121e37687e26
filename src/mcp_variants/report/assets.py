"""What the report embeds to host the views: the report's host script (built from apps/report/host.ts
with the official AppBridge) and the views' HTML, each gzip-compressed and base64-encoded.

Compressed because the views and the AppBridge are about 0.6 MB each and a report holds two
views: 1.8 MB raw, 0.6 MB compressed. The small inline loader (`LOADER`) inflates them with the
browser's DecompressionStream: nothing is fetched (docs/choices.md, "The demo report").
"""

from __future__ import annotations

import base64
import gzip
from functools import cache
from html import escape
from importlib import resources

HOST_FILE = "report-host.js"
HOST_ID = "report-host"


@cache
def host_script() -> str:
    return (resources.files("mcp_variants.report") / HOST_FILE).read_text(encoding="utf-8")


def embedded(element: str, text: str) -> str:
    """A script element holding `text`, gzip (deterministic: no timestamp) and base64: inert data, never run as it is."""
    data = base64.b64encode(gzip.compress(text.encode(), compresslevel=9, mtime=0)).decode()
    return f"<script type=text/plain data-encoding=gzip+base64 id={escape(element, quote=True)}>{data}</script>"


# The report's only uncompressed script: inflates the host script and starts it (the host
# inflates each view the same way), and fills a raw exchange when it is first unfolded.
# A browser without DecompressionStream shows neither.
LOADER = """<script>
async function inflate(id) {
  const bytes = Uint8Array.from(atob(document.getElementById(id).textContent), (c) => c.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}
for (const folded of document.querySelectorAll("details[data-raw]")) {
  folded.addEventListener("toggle", async () => {
    if (!folded.open || folded.dataset.filled) return;
    folded.dataset.filled = "yes";
    folded.querySelector("pre").textContent = await inflate(folded.dataset.raw);
  });
}
inflate("@@HOST@@")
  .then((code) => {
    const script = document.createElement("script");
    script.textContent = code;
    document.head.append(script);
    return window.mcpVariantsReportHost.start(inflate);
  })
  .catch((error) => {
    document.body.dataset.views = "error";
    console.error("the report's views could not start:", error);
  });
</script>""".replace("@@HOST@@", HOST_ID)
