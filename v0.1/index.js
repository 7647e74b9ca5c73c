// `agent-tools-native/v0.1`: the seed contract exactly (nine tools, strict validation,
// `{ isError, text }` results, the eight-field ServerConfig), served by the same engine as the
// package root. The exports are listed by name so ESM importers see them too.

const shared = require('../api.js')

const { native } = shared
const {
  createAgentTools,
  dispatch,
  listTools,
  tools,
  readOnlyTools,
  selectSurface,
  getTool,
  resolveConfig,
  buildConfig,
} = shared.makeApi('seed')

const { StartupError, ToolError, serializeError, fsError, sweepSpillDir } = shared
const {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
} = native

module.exports = {
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
}
