// What our hosts tell a view about themselves in ui/initialize (McpUiHostContext): the browser
// tests' host (harness/host.ts) and the demo report's (report/host.ts). A light, inline, web host.
import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Tool } from "@modelcontextprotocol/client";

export function inlineHostContext(tool: Tool, maxHeight: number): McpUiHostContext {
  return {
    toolInfo: { tool },
    theme: "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: "web",
    locale: "en-US",
    containerDimensions: { maxHeight },
  };
}
