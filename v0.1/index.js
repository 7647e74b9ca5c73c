// `agent-tools-native/v0.1`: the seed contract exactly (nine tools, strict validation,
// `{ isError, text }` results, the eight-field ServerConfig), served by the same engine as the
// package root.

const shared = require('../api.js')

const { native } = shared

module.exports = {
  ...shared.makeApi('seed'),
  StartupError: shared.StartupError,
  ToolError: shared.ToolError,
  serializeError: shared.serializeError,
  fsError: shared.fsError,
  sweepSpillDir: shared.sweepSpillDir,
  DEFAULT_MAX_OUTPUT_BYTES: native.DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES: native.DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS: native.DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS: native.DEFAULT_BASH_TIMEOUT_MAX_MS,
}
