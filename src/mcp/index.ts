export {
  mcpServerReferenceSchema,
  mcpsOption,
  resolveServerConfig,
  type MCPCommonConfig,
  type MCPHttpConfig,
  type MCPServerConfig,
  type MCPServerReference,
  type MCPStdioConfig,
} from "./config.js";
export { MCPConfigError, MCPConnectionError, MCPDependencyError } from "./errors.js";
export { MCPServerAdapter, type MCPServerAdapterOptions } from "./MCPServerAdapter.js";
export { MCPSession, clearMCPToolListCache } from "./MCPSession.js";
export { MCPTool } from "./MCPTool.js";
export {
  createDynamicToolFilter,
  createStaticToolFilter,
  type MCPDynamicToolFilter,
  type MCPStaticToolFilter,
  type MCPToolFilter,
  type MCPToolFilterContext,
  type MCPToolInfo,
} from "./toolFilter.js";
