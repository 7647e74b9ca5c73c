// `agent-tools-native mcp --http`: the same MCP server as over stdio, reachable over the MCP
// Streamable HTTP transport at /mcp, through the official SDK's StreamableHTTPServerTransport on
// a plain node:http server. One SDK `Server` and transport per session (the SDK ties a server to
// one transport). In front of the SDK, every request passes, in this order:
//   1. the path: only /mcp;
//   2. DNS-rebinding protection: the Host header must name this server's host:port (or
//      localhost:port; the SDK's own allowedHosts check ignores the port, so it is not used), and
//      an Origin header, when present, must be a loopback origin;
//   3. the bearer token, compared in constant time (both sides hashed, then timingSafeEqual);
//   4. the body: at most 4 MiB, whether announced by Content-Length or chunked, read here so an
//      oversized upload is cut off (413, the connection dropped 2 s later) instead of drained;
//   5. the session: an unknown Mcp-Session-Id is 404; a new session needs an initialize request
//      and room under the session cap.
// A call whose response stream closes before it is answered (the client went away) is cancelled,
// as is every call of a session that is deleted, expires or is stopped with the server.

const http = require('node:http')
const { createHash, randomUUID, timingSafeEqual } = require('node:crypto')
const { isIP } = require('node:net')
const { setWarnSink } = require('./index.js')
const { connectChecked, createMcpServer, onStopSignals, sdk, settled } = require('./mcp.js')

const MAX_BODY_BYTES = 4 * 1024 * 1024
const DEFAULT_MAX_SESSIONS = 16
const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000
/** A client has this long to send its headers, and this long to send a whole request. */
const HEADERS_TIMEOUT_MS = 10_000
const REQUEST_TIMEOUT_MS = 30_000
/** How long the rest of a refused (413) upload is read and discarded before the drop. */
const LINGER_MS = 2000

/** Whether `host` (a name or an address, IPv6 with or without brackets) is the loopback. */
function isLoopbackHost(host) {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  )
}

/** Whether `host` is a wildcard address (every interface). */
function isWildcard(host) {
  return host === '0.0.0.0' || host === '::' || host === '[::]'
}

/** `host` as it appears in a URL or a Host header: IPv6 in brackets. */
function urlHost(host) {
  return isIP(host) === 6 ? `[${host}]` : host
}

/** Whether an Origin header names a page served from the loopback. */
function isLoopbackOrigin(origin) {
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
  } catch {
    return false // "null", or not a URL at all
  }
}

/**
 * The Host header values that address this server: its own host:port, localhost:port, and
 * each of `extra` (`name` or `name:port`; without a port, the server's).
 */
function allowedHostHeaders(host, port, extra = []) {
  const names = [urlHost(host), 'localhost']
  // Bound to every interface, the server is addressed by a loopback name through a port forward
  // or a container's published port.
  if (isWildcard(host) || isLoopbackHost(host)) names.push('127.0.0.1', '[::1]')
  const allowed = names.map((name) => `${name.toLowerCase()}:${port}`)
  // On port 80 a client may leave the port out.
  if (port === 80) allowed.push(...names.map((name) => name.toLowerCase()))
  for (const name of extra) {
    const withPort =
      /:\d+$/.test(name) && !/^[^[]*:.*:/.test(name) ? name : `${urlHost(name)}:${port}`
    allowed.push(withPort.toLowerCase())
  }
  return new Set(allowed)
}

function sha256(text) {
  return createHash('sha256').update(text).digest()
}

/** A request's bearer token against the configured one, in constant time. */
function tokenMatches(authorization, expected) {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '')
  // Hashing first makes both sides the same length, so timingSafeEqual always runs.
  const same = timingSafeEqual(sha256(match ? match[1] : ''), expected)
  return match !== null && same
}

/** A JSON-RPC error response with an HTTP status, as the SDK answers its own refusals. */
function refuse(res, status, message, headers = {}) {
  const code = status === 404 ? -32001 : status === 400 && /^Parse/.test(message) ? -32700 : -32000
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  })
  res.end(body)
}

/** Reads a request body up to `limit` bytes: `{ text }`, or `{ tooLarge: true }` as soon as over. */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) {
      resolve({ tooLarge: true })
      return
    }
    const chunks = []
    let size = 0
    const onData = (chunk) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.pause()
        resolve({ tooLarge: true })
      } else chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8') }))
    req.once('error', reject)
    req.once('close', () => reject(new Error('the client closed the request')))
  })
}

/** The JSON-RPC request ids in a POST body (one message or a batch). */
function requestIds(body) {
  const { isJSONRPCRequest } = sdk()
  const messages = Array.isArray(body) ? body : [body]
  return messages.filter((m) => isJSONRPCRequest(m)).map((m) => m.id)
}

function isInitialize(body) {
  const { isInitializeRequest } = sdk()
  return (Array.isArray(body) ? body : [body]).some((m) => isInitializeRequest(m))
}

/**
 * Serves `config`'s surface over Streamable HTTP until SIGTERM, SIGINT or SIGHUP; then every
 * running call is cancelled (its processes killed) and the promise resolves.
 * `options`: `host`, `port` (0: any free port), `token` (the bearer token, required),
 * `maxSessions`, `sessionIdleMs`, `allowedHosts` (more Host header values to accept), and
 * `log(line)` for the server's own stderr lines.
 */
async function serveHttp(config, options) {
  const {
    host = '127.0.0.1',
    port = 0,
    token,
    maxSessions = DEFAULT_MAX_SESSIONS,
    sessionIdleMs = DEFAULT_SESSION_IDLE_MS,
    allowedHosts: extraHosts = [],
    log = (line) => process.stderr.write(`${line}\n`),
  } = options
  if (!token) throw new Error('serveHttp needs a token')
  const expected = sha256(token)
  const { StreamableHTTPServerTransport } = sdk()
  /** Live sessions by Mcp-Session-Id. */
  const sessions = new Map()
  /** Sessions being initialized (not yet in `sessions`), counted against the cap. */
  let starting = 0
  let allowedHosts = new Set()

  // A diagnostic line belongs to no one call (the sink is process-wide), so it goes to every
  // session as a log message on its standalone GET event stream, not on a call's response
  // stream; each session's own `logging/setLevel` applies (the SDK keys levels by session id).
  setWarnSink((line) => {
    process.stderr.write(line)
    for (const session of sessions.values()) {
      session.server
        .sendLoggingMessage(
          { level: 'warning', logger: 'agent-tools-native', data: line.trimEnd() },
          session.id,
        )
        .catch(() => {})
    }
  })

  async function newSession() {
    const session = {
      id: undefined,
      inFlight: new Set(),
      disconnect: new AbortController(),
      /** An abort per JSON-RPC request id whose response stream is open. */
      calls: new Map(),
      open: 0,
      lastActive: Date.now(),
    }
    session.server = createMcpServer(
      config,
      session.inFlight,
      session.disconnect,
      (id) => session.calls.get(id)?.signal,
    )
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id
        sessions.set(id, session)
      },
    })
    // Deleted, expired or stopped: the session's running calls are cancelled.
    session.server.onclose = () => {
      session.disconnect.abort()
      if (session.id) sessions.delete(session.id)
    }
    // A reply to a client that went away cannot be written; that is not the server's failure.
    session.server.onerror = () => {}
    await connectChecked(session.server, session.transport, config)
    return session
  }

  /** Closes the sessions idle for longer than `sessionIdleMs` (no open request, no call). */
  function expireIdle() {
    const now = Date.now()
    for (const session of sessions.values()) {
      if (
        session.open === 0 &&
        session.inFlight.size === 0 &&
        now - session.lastActive > sessionIdleMs
      ) {
        session.transport.close().catch(() => {})
      }
    }
  }

  async function handle(req, res) {
    const path = (req.url ?? '').split('?')[0]
    if (path !== '/mcp') {
      refuse(res, 404, `Not Found: the MCP endpoint is /mcp, not ${path}`)
      return
    }
    const hostHeader = (req.headers.host ?? '').toLowerCase()
    if (!allowedHosts.has(hostHeader)) {
      refuse(
        res,
        403,
        `Forbidden: Host ${hostHeader || '(none)'} is not this server (${[...allowedHosts].join(' or ')})`,
      )
      return
    }
    const origin = req.headers.origin
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      refuse(res, 403, `Forbidden: Origin ${origin} is not a loopback origin`)
      return
    }
    if (!tokenMatches(req.headers.authorization, expected)) {
      const given = req.headers.authorization !== undefined
      refuse(
        res,
        401,
        given
          ? 'Unauthorized: wrong bearer token'
          : 'Unauthorized: send the token as Authorization: Bearer <token>',
        {
          'www-authenticate': given
            ? 'Bearer realm="agent-tools-native", error="invalid_token"'
            : 'Bearer realm="agent-tools-native"',
        },
      )
      return
    }
    let body
    if (req.method === 'POST') {
      const read = await readBody(req, MAX_BODY_BYTES)
      if (read.tooLarge) {
        refuse(res, 413, `Payload Too Large: the body must not exceed ${MAX_BODY_BYTES} bytes`)
        // The rest of the upload is discarded for a moment, so the client reads the 413 instead
        // of a reset, then the connection is dropped: an endless body holds nothing for long.
        req.on('data', () => {})
        req.resume()
        const drop = setTimeout(() => req.socket?.destroy(), LINGER_MS)
        drop.unref()
        req.once('end', () => clearTimeout(drop))
        return
      }
      try {
        body = JSON.parse(read.text)
      } catch {
        refuse(res, 400, 'Parse error: the body is not JSON')
        return
      }
    }
    const sessionId = req.headers['mcp-session-id']
    let session
    if (sessionId !== undefined) {
      session = sessions.get(sessionId)
      if (!session) {
        refuse(res, 404, 'Session not found: it ended or expired; initialize a new one')
        return
      }
    } else if (req.method === 'POST' && isInitialize(body)) {
      expireIdle()
      if (sessions.size + starting >= maxSessions) {
        refuse(
          res,
          503,
          `Service Unavailable: ${maxSessions} sessions are open (--max-sessions); end one with DELETE or wait for one to expire`,
          { 'retry-after': '5' },
        )
        return
      }
      starting += 1
      try {
        session = await newSession()
      } finally {
        starting -= 1
      }
    } else {
      refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required (send initialize first)')
      return
    }

    session.open += 1
    session.lastActive = Date.now()
    const ids = req.method === 'POST' ? requestIds(body) : []
    for (const id of ids) session.calls.set(id, new AbortController())
    res.once('close', () => {
      session.open -= 1
      session.lastActive = Date.now()
      for (const id of ids) {
        // The stream closed before the answer was written: the client is gone, stop the work.
        if (!res.writableFinished) session.calls.get(id)?.abort()
        session.calls.delete(id)
      }
    })
    await session.transport.handleRequest(req, res, body)
  }

  const server = http.createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    },
    (req, res) => {
      handle(req, res).catch((err) => {
        if (!res.headersSent) refuse(res, 500, `Internal error: ${err?.message ?? err}`)
        else res.destroy()
      })
    },
  )
  server.maxConnections = 256

  if (!isLoopbackHost(host)) {
    log(
      `agent-tools-native: warning: --host ${host} is not a loopback address: anyone who can ` +
        'reach this machine on the port can try the token, and plain HTTP carries it and every ' +
        'file unencrypted; prefer --host 127.0.0.1 with an SSH port forward (README: Remote ' +
        'workspace)',
    )
  }
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = server.address().port
  allowedHosts = allowedHostHeaders(host, bound, extraHosts)
  const sweeper = setInterval(expireIdle, Math.min(sessionIdleMs, 60_000))
  sweeper.unref()

  log(`agent-tools-native: MCP server listening on http://${urlHost(host)}:${bound}/mcp`)

  await new Promise((resolve) => {
    const removeSignals = onStopSignals(async () => {
      removeSignals()
      clearInterval(sweeper)
      server.close()
      const calls = []
      for (const session of sessions.values()) {
        session.disconnect.abort()
        calls.push(...session.inFlight)
      }
      await settled(calls, 1500)
      for (const session of sessions.values()) session.transport.close().catch(() => {})
      server.closeAllConnections()
      resolve()
    })
  })
}

module.exports = {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  MAX_BODY_BYTES,
  serveHttp,
}
