// The package root: the newest contract (content-part results, cancellation, lenient
// validation, every tool). `agent-tools-native/v0.1` serves the seed contract from the same
// engine (see api.js). The exports are listed by name so ESM importers see them too.

const shared = require('./api.js')

const { native } = shared
const {
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
} = shared.makeApi('current')

const {
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
} = shared
const {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_BASH_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_MONITOR_READY_TIMEOUT_MS,
  DEFAULT_MAX_MONITORS,
} = native
const {
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
} = require('./guard.js')

module.exports = {
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
}
