// What @fastify/reply-from takes from undici (the dispatcher classes and the
// global dispatcher: node_modules/@fastify/reply-from/lib/request.js), without
// the rest of the package.
// undici's index also loads fetch, WebSocket, the caches, the mocks and the
// interceptors, which the edge never uses: a third of the JavaScript parsed at
// start. build.mjs resolves reply-from's `require('undici')` to this file.
// Keep in step with node_modules/undici/index.js (the proxy suites exercise every path).
'use strict'

const Dispatcher = require('undici/lib/dispatcher/dispatcher')
const api = require('undici/lib/api')

// undici's index gives every dispatcher its request/stream/pipeline methods.
Object.assign(Dispatcher.prototype, api)

module.exports = {
  Dispatcher,
  Client: require('undici/lib/dispatcher/client'),
  Pool: require('undici/lib/dispatcher/pool'),
  BalancedPool: require('undici/lib/dispatcher/balanced-pool'),
  Agent: require('undici/lib/dispatcher/agent'),
  ProxyAgent: require('undici/lib/dispatcher/proxy-agent'),
  getGlobalDispatcher: require('undici/lib/global').getGlobalDispatcher
}
