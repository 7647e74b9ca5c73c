// The parts of the official MCP SDK the server uses, in one module. In a checkout they come from
// node_modules (the SDK is a devDependency); the published package instead carries
// `mcp-sdk.bundle.js`, this module with the SDK and its dependencies bundled into one file at pack
// time (scripts/bundle-mcp-sdk.mjs), so installing the library pulls in no web server, validator
// or schema library. `sdk()` picks the bundle when it is there.

function load() {
  return {
    Server: require('@modelcontextprotocol/sdk/server/index.js').Server,
    StreamableHTTPServerTransport: require('@modelcontextprotocol/sdk/server/streamableHttp.js')
      .StreamableHTTPServerTransport,
    ...pick(require('@modelcontextprotocol/sdk/types.js'), [
      'CallToolRequestSchema',
      'InitializeRequestSchema',
      'ListToolsRequestSchema',
      'PingRequestSchema',
      'SetLevelRequestSchema',
      'isInitializeRequest',
      'isJSONRPCNotification',
      'isJSONRPCRequest',
    ]),
  }
}

function pick(from, names) {
  return Object.fromEntries(names.map((name) => [name, from[name]]))
}

module.exports = { load }
