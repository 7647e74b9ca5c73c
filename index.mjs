// ESM entry: the same objects as the CommonJS entry, re-exported by name.
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('./index.js')

export const {
  createAgentTools,
  dispatch,
  dispatchMany,
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
  contentText,
  setWarnSink,
  sweepSpillDir,
  responsesCall,
  responsesOutput,
  sweepMonitors,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_BASH_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_MONITOR_READY_TIMEOUT_MS,
  DEFAULT_MAX_MONITORS,
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
} = api
export default api
