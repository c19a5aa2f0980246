export {
  type McpServerInput,
  type McpServerSpec,
  McpServerSpecSchema,
  snakeCase,
} from "../config/mcp-spec.ts";
export { attachmentsOf, attachRollout } from "./attach.ts";
export { McpClientProvider, type McpEndpoint } from "./client-provider.ts";
export { toolResultContent, toolResultText } from "./content.ts";
export { type McpServersConfig, mcpEnv, mcpServersConfig, type RolloutEndpoint } from "./endpoint.ts";
export { openServer, SharedServers, type StateChannel } from "./launch.ts";
export { declaredServers, openToolbox, tasksetPrefix } from "./open.ts";
export { type CallToolResult, LocalToolProvider, type McpTool, type ToolProvider } from "./provider.ts";
export { serveToolset } from "./serve.ts";
export { type QualifiedTool, RolloutToolbox, type ToolCallRecord } from "./toolbox.ts";
export { type McpUser, mcpUser } from "./user.ts";
