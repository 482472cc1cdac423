import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import { parsePageFormState, type PageFormState } from '../../../common/page/page-render.js'
import type { PageAnswer } from '../page/page-answer.js'
import { loopbackHttpCookie } from '../http/loopback-http.js'

/**
 * The cookie that carries a form post's page to the GET after its 303
 * (post/redirect/get). `__Host-`: only this origin, over HTTPS, may set it.
 * On a loopback page over plain http, where no browser keeps a `__Host-`
 * cookie, the edge sends it as {@link FORM_FLASH_LOOPBACK_COOKIE}
 * (server/edge/http/loopback-http.ts); either is read, and both are signed.
 */
export const FORM_FLASH_COOKIE = '__Host-threshold-form'
/** The flash cookie's name on a loopback page over plain http: the same, without the prefix. */
export const FORM_FLASH_LOOPBACK_COOKIE = 'threshold-form'

/** How long a flash is honoured, in seconds: the redirect is followed at once; a flash older than this is ignored. */
export const FORM_FLASH_LIFETIME_S = 300

/** Past this many characters a flash's notice is replaced by the generic text: browsers drop cookies over 4 KB. */
const FLASH_VALUE_LIMIT = 3_500

/** A form post's page as the GET after the redirect shows it. */
interface FlashedPage {
  readonly status: number
  readonly state: PageFormState
}

/** Writes and reads the flash cookie. */
export interface FormFlash {
  /**
   * The Set-Cookie value that carries `page` to the next GET of the page;
   * `genericText` (error.GENERIC in the page's language, English's by
   * default) stands in for a notice too long for a cookie.
   */
  cookieFor (page: FlashedPage, now?: number, genericText?: string): string
  /** The page a Cookie header carries, or null when it carries none, or one forged, expired or unreadable. */
  read (cookieHeader: string | undefined, now?: number): FlashedPage | null
  /** The Set-Cookie value that removes the flash. */
  readonly clearing: string
}

const ATTRIBUTES = 'Path=/; Secure; HttpOnly; SameSite=Strict'

function cookieNamed (header: string, name: string): string | null {
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=')
    if (separator !== -1 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim()
  }
  return null
}

/**
 * The flash, signed (HMAC-SHA256) with `key` so that a value the edge did
 * not write is ignored. The key is the instance's own, drawn at start: a
 * flash is read back by the instance that wrote it or not at all (the
 * visitor then sees the plain page; docs/no-script.md).
 */
export function createFormFlash (key: Buffer = randomBytes(32)): FormFlash {
  const sign = (payload: string): string => createHmac('sha256', key).update(payload).digest('base64url')
  const valueFor = (page: FlashedPage, expires: number): string => {
    const payload = Buffer.from(JSON.stringify({ expires, status: page.status, state: page.state })).toString('base64url')
    return `${payload}.${sign(payload)}`
  }
  return {
    cookieFor (page, now = Date.now(), genericText = englishCatalogue['error.GENERIC']) {
      const expires = now + FORM_FLASH_LIFETIME_S * 1000
      let value = valueFor(page, expires)
      if (value.length > FLASH_VALUE_LIMIT && page.state.notice !== null) {
        value = valueFor({ status: page.status, state: { ...page.state, notice: { kind: page.state.notice.kind, text: genericText } } }, expires)
      }
      return `${FORM_FLASH_COOKIE}=${value}; Max-Age=${FORM_FLASH_LIFETIME_S}; ${ATTRIBUTES}`
    },
    read (cookieHeader, now = Date.now()) {
      if (cookieHeader === undefined) return null
      const value = cookieNamed(cookieHeader, FORM_FLASH_COOKIE) ?? cookieNamed(cookieHeader, FORM_FLASH_LOOPBACK_COOKIE)
      const dot = value === null ? -1 : value.indexOf('.')
      if (value === null || dot === -1) return null
      const payload = value.slice(0, dot)
      const given = Buffer.from(value.slice(dot + 1))
      const expected = Buffer.from(sign(payload))
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
      let raw: unknown
      try {
        raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
      } catch {
        return null
      }
      if (raw === null || typeof raw !== 'object') return null
      const { expires, status, state } = raw as Record<string, unknown>
      if (typeof expires !== 'number' || expires <= now || typeof status !== 'number' || status < 200 || status > 599) return null
      const parsed = parsePageFormState(JSON.stringify(state))
      return parsed === null ? null : { status, state: parsed }
    },
    clearing: `${FORM_FLASH_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`
  }
}

/**
 * The GET of the page that follows a form post's 303: the page with the
 * flashed state, the flash cleared (so a reload or Back shows the plain
 * page). Returns false, the flash cleared too, when the request carries no
 * valid flash: the caller answers with the plain page. `loopbackHttp` says
 * whether a request is for a loopback page over plain http, where the
 * flash is cleared as it was set (server/edge/http/loopback-http.ts).
 */
export function flashedPageFrom (pageAnswer: PageAnswer, flash: FormFlash, loopbackHttp: (request: IncomingMessage) => boolean): (request: IncomingMessage, response: ServerResponse, query: string) => boolean {
  return (request, response, query) => {
    const page = flash.read(request.headers.cookie)
    response.setHeader('set-cookie', loopbackHttp(request) ? loopbackHttpCookie(flash.clearing) : flash.clearing)
    if (page === null) return false
    // The GET after the 303 has no Fastify request to log with; the form post's own render is logged (form-page-answer.ts).
    pageAnswer.pageWithState(request, response, query, page.state, page.status)
    return true
  }
}
