// ESM entry of `agent-tools-native/v0.1`: the same objects as its CommonJS entry.
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('./index.js')

export const {
  createAgentTools,
  dispatch,
  listTools,
  tools,
  readOnlyTools,
  selectSurface,
  getTool,
  resolveConfig,
  buildConfig,
  StartupError,
  ToolError,
  serializeError,
  fsError,
  sweepSpillDir,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
} = api
export default api
