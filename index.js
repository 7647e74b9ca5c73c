// The package root: the newest contract (content-part results, cancellation, lenient
// validation, every tool). `agent-tools-native/v0.1` serves the seed contract from the same
// engine (see api.js). This is the one list of the root's exports, one line each: index.mjs
// re-exports it (Node reads the `exports.name =` lines), and index.d.ts declares it.

const shared = require('./api.js')
const api = shared.makeApi('current')
const { native } = shared
const guard = require('./guard.js')

exports.createAgentTools = api.createAgentTools
exports.dispatch = api.dispatch
exports.dispatchMany = api.dispatchMany
exports.listTools = api.listTools
exports.tools = api.tools
exports.readOnlyTools = api.readOnlyTools
exports.selectSurface = api.selectSurface
exports.getTool = api.getTool
exports.resolveConfig = api.resolveConfig
exports.buildConfig = api.buildConfig
exports.StartupError = shared.StartupError
exports.ToolError = shared.ToolError
exports.serializeError = shared.serializeError
exports.fsError = shared.fsError
exports.contentText = shared.contentText
exports.setWarnSink = shared.setWarnSink
exports.sweepSpillDir = shared.sweepSpillDir
exports.responsesCall = shared.responsesCall
exports.responsesOutput = shared.responsesOutput
exports.sweepMonitors = shared.sweepMonitors
exports.DEFAULT_MAX_OUTPUT_BYTES = native.DEFAULT_MAX_OUTPUT_BYTES
exports.DEFAULT_MAX_BASH_OUTPUT_BYTES = native.DEFAULT_MAX_BASH_OUTPUT_BYTES
exports.DEFAULT_MAX_FILE_BYTES = native.DEFAULT_MAX_FILE_BYTES
exports.DEFAULT_MAX_IMAGE_BYTES = native.DEFAULT_MAX_IMAGE_BYTES
exports.DEFAULT_BASH_TIMEOUT_MS = native.DEFAULT_BASH_TIMEOUT_MS
exports.DEFAULT_BASH_TIMEOUT_MAX_MS = native.DEFAULT_BASH_TIMEOUT_MAX_MS
exports.DEFAULT_MONITOR_READY_TIMEOUT_MS = native.DEFAULT_MONITOR_READY_TIMEOUT_MS
exports.DEFAULT_MAX_MONITORS = native.DEFAULT_MAX_MONITORS
exports.analyzeBash = guard.analyzeBash
exports.buildGuardContext = guard.buildGuardContext
exports.withinWorkspace = guard.withinWorkspace
exports.touchesOutside = guard.touchesOutside
exports.commandsIn = guard.commandsIn
