import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'

/**
 * One POST the edge makes itself (not a proxied call): the domain check it
 * runs when DOMAIN_CHECK_ENFORCED is on, and the revocation of tokens it
 * withheld. Plain node:http(s), not the global `fetch`, which a host
 * environment may replace: TLS verified, no redirect followed (node:http
 * follows none), one time limit for the whole exchange and a bound on the
 * answer's size.
 */

/** Why an outbound call gave no answer; `reason` is for the log. */
export class OutboundCallError extends Error {
  readonly code = 'THRESHOLD_OUTBOUND_CALL_FAILED'
  constructor (readonly reason: 'timed out' | 'unreachable' | 'cut off' | 'larger than the limit', options?: ErrorOptions) {
    super(reason, options)
    this.name = 'OutboundCallError'
  }
}

export interface OutboundAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** POSTs `body` to `url` and reads the whole answer, within `timeoutMs` and `limitBytes`. */
export async function postOnce (url: string, options: {
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  readonly timeoutMs: number
  readonly limitBytes: number
}): Promise<OutboundAnswer> {
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (outcome: { answer: OutboundAnswer } | { error: OutboundCallError }): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if ('error' in outcome) {
        request.destroy()
        reject(outcome.error)
      } else {
        resolve(outcome.answer)
      }
    }
    const request = send(target, {
      method: 'POST',
      headers: { ...options.headers, 'content-length': String(options.body.length) },
      rejectUnauthorized: true
    }, (response) => {
      const chunks: Buffer[] = []
      let length = 0
      response.on('data', (chunk: Buffer) => {
        length += chunk.length
        if (length > options.limitBytes) settle({ error: new OutboundCallError('larger than the limit') })
        else chunks.push(chunk)
      })
      response.on('end', () => settle({ answer: { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) } }))
      response.on('error', (error) => settle({ error: new OutboundCallError('cut off', { cause: error }) }))
      response.on('close', () => { if (!response.complete) settle({ error: new OutboundCallError('cut off') }) })
    })
    const timer = setTimeout(() => settle({ error: new OutboundCallError('timed out') }), options.timeoutMs)
    request.on('error', (error) => settle({ error: new OutboundCallError('unreachable', { cause: error }) }))
    request.end(options.body)
  })
}
