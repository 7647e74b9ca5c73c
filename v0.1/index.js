// `agent-tools-native/v0.1`: the seed contract exactly (nine tools, strict validation,
// `{ isError, text }` results, the eight-field ServerConfig), served by the same engine as the
// package root. This is the one list of its exports, one line each: index.mjs re-exports it.

const shared = require('../api.js')
const api = shared.makeApi('seed')
const { native } = shared

exports.createAgentTools = api.createAgentTools
exports.dispatch = api.dispatch
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
exports.sweepSpillDir = shared.sweepSpillDir
exports.DEFAULT_MAX_OUTPUT_BYTES = native.DEFAULT_MAX_OUTPUT_BYTES
exports.DEFAULT_MAX_FILE_BYTES = native.DEFAULT_MAX_FILE_BYTES
exports.DEFAULT_BASH_TIMEOUT_MS = native.DEFAULT_BASH_TIMEOUT_MS
exports.DEFAULT_BASH_TIMEOUT_MAX_MS = native.DEFAULT_BASH_TIMEOUT_MAX_MS
