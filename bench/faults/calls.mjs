// The calls of npm run load:faults's load (load.mjs): HTTPS to nginx on
// loopback, named by the site's host, over keep-alive connections; each call
// resolves with its outcome and never throws, so that a fault is counted, not
// crashed on.
import { Agent, request } from 'node:https'

/** A call without an answer within this long counts as a network error (nginx's own timeouts are 60 s). */
const CALL_TIMEOUT_MS = 30_000

/**
 * One call's outcome: `status` 0 when no answer came (`error` says why).
 * @typedef {{ status: number, retryAfterMs?: number | null, json?: { refresh?: string, reason?: string } | null, error?: string }} Answer
 */

const reason = (/** @type {NodeJS.ErrnoException} */ error) => error.code ?? error.message

/**
 * Calls to nginx's https `port` for the site `host` (its self-signed certificate is not checked); `close` ends the connections.
 * @param {{ port: number, host: string }} options
 */
export function createCaller ({ port, host }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false, servername: host })

  /**
   * One call; resolves with the status (0: no answer), Retry-After in ms and the JSON body, never throws.
   * @param {string} method
   * @param {string} path
   * @param {object} [body]
   * @returns {Promise<Answer>}
   */
  function call (method, path, body) {
    return new Promise((resolve) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const outgoing = request({
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: { host, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
        timeout: CALL_TIMEOUT_MS
      }, (response) => {
        /** @type {Buffer[]} */
        const chunks = []
        response.on('data', (chunk) => chunks.push(chunk))
        response.on('error', (error) => resolve({ status: 0, error: reason(error) }))
        response.on('end', () => {
          let json = null
          if (/json/.test(response.headers['content-type'] ?? '')) {
            try { json = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { json = null }
          }
          const retryAfter = Number(response.headers['retry-after'])
          resolve({ status: response.statusCode ?? 0, retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : null, json })
        })
      })
      outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
      outgoing.on('error', (error) => resolve({ status: 0, error: reason(error) }))
      outgoing.end(payload)
    })
  }

  return { call, close: () => agent.destroy() }
}
