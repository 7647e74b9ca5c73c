// The package root: the newest contract (content-part results, cancellation, lenient
// validation, every tool). `agent-tools-native/v0.1` serves the seed contract from the same
// engine (see api.js).

const shared = require('./api.js')

const { native } = shared

module.exports = {
  ...shared.makeApi('current'),
  StartupError: shared.StartupError,
  ToolError: shared.ToolError,
  serializeError: shared.serializeError,
  fsError: shared.fsError,
  contentText: shared.contentText,
  setWarnSink: shared.setWarnSink,
  sweepSpillDir: shared.sweepSpillDir,
  responsesCall: shared.responsesCall,
  responsesOutput: shared.responsesOutput,
  DEFAULT_MAX_OUTPUT_BYTES: native.DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_BASH_OUTPUT_BYTES: native.DEFAULT_MAX_BASH_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES: native.DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_IMAGE_BYTES: native.DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS: native.DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS: native.DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_MONITOR_READY_TIMEOUT_MS: native.DEFAULT_MONITOR_READY_TIMEOUT_MS,
  DEFAULT_MAX_MONITORS: native.DEFAULT_MAX_MONITORS,
}
