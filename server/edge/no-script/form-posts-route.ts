import { createHash } from 'node:crypto'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SignedIn } from '../../../common/http/accounts-answers.js'
import { resolveLocalAccounts } from '../../../common/sign-in/local-accounts.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import type { RenderedView } from '../../../common/page/page-render.js'
import { domainCheckRequested, pageQueryContext, resetTokenFrom, viewFrom } from '../../../common/page/page-query.js'
import { safeRedirectTarget } from '../../../common/page/redirect-target.js'
import { logFailure } from '../upstream/client-gone.js'
import type { ServerConfig } from '../config.js'
import { cookieDomainFor } from '../sessions/cookie-domain.js'
import { statedHostName } from '../http/host-header.js'
import { HttpError, textOf } from '../http/http-error.js'
import { requireContentType } from '../http/request-bodies.js'
import { clearedTokenCookies, pageTokenCookies } from '../sessions/set-cookie-headers.js'
import { SIGN_OUT_FORM, type SignOutPageAnswer } from '../sessions/sign-out-page.js'
import { cookieOf } from '../sessions/token-answers.js'
import { rejectCrossSiteRequests } from '../http/same-origin-guard.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import { accountsCaller } from './accounts-call.js'
import { domainGate } from '../domain-check/domain-gate.js'
import type { FormFlash } from './form-flash.js'
import { FormFieldsError, readFormFields } from './form-fields.js'
import type { FormOutcome } from './form-outcome.js'
import type { FormHandler, FormPost } from './form-post.js'
import { ACCOUNT_FORMS, type AccountForm } from '../../../common/account/account-state.js'
import { identityProviderPage } from './identity-provider-page.js'
import { emailCodeForm, emailCodeOffered, emailCodeRequestForm } from './email-code-forms.js'
import { loginForm } from './login-form.js'
import { logoutForm } from './logout-form.js'
import { deleteForm, emailForm, endOtherSessionsForm, endSessionForm, passwordForm } from './account-forms.js'
import { visitorCalls } from '../account/account-view.js'
import type { FormPageAnswer } from './form-page-answer.js'
import { registerForm, resetPasswordForm, setPasswordForm, verificationLinkForm } from './registration-forms.js'
import { RepeatedPosts } from './repeated-posts.js'
import { secondFactorForm } from './second-factor-form.js'
import { ssoStartForm } from './sso-start-form.js'
import { socialStartForm } from './social-start-form.js'

/** The largest form body read: the register form, typed in full, is a few hundred bytes. */
const FORM_POST_BODY_LIMIT_BYTES = 16 * 1024

const FORM_TYPE = 'application/x-www-form-urlencoded'

/** The headers a post's calls put on its reply (inner-call.ts) that a repeat of the post is answered with too. */
const CARRIED_HEADERS = ['set-cookie', 'retry-after'] as const

/** The forms by their `form` field (docs/no-script.md). */
const FORMS: Readonly<Record<string, FormHandler>> = {
  login: loginForm,
  register: registerForm,
  resetPassword: resetPasswordForm,
  setPassword: setPasswordForm,
  sso: ssoStartForm,
  social: socialStartForm,
  verificationLink: verificationLinkForm,
  secondFactor: secondFactorForm,
  'email-code-request': emailCodeRequestForm,
  'email-code': emailCodeForm,
  [SIGN_OUT_FORM]: logoutForm,
  'account-end-session': endSessionForm,
  'account-end-others': endOtherSessionsForm,
  'account-password': passwordForm,
  'account-email': emailForm,
  'account-delete': deleteForm
} satisfies Readonly<Record<AccountForm, FormHandler>> & Readonly<Record<string, FormHandler>>

export interface FormPostsOptions {
  readonly config: ServerConfig
  /** Whether the accounts service completes password resets (`view=setPassword`). */
  readonly passwordResetCompletion: boolean
  readonly trust: ProxyTrust | null
  /** Answers with the page rendered for a state (form-page-answer.ts). */
  readonly answerPage: FormPageAnswer
  /** Carries the page of a form that holds a password to the GET after a 303 (form-flash.ts). */
  readonly flash: FormFlash
  /** Answers with the sign-out page (server/edge/sessions/sign-out-page.ts), for a sign-out that failed. */
  readonly answerSignOutPage: SignOutPageAnswer
}

/**
 * The forms whose every page is shown after a 303 (post/redirect/get): they
 * carry a password (or an emailed code, docs/email-codes.md), and a page
 * that answers the POST itself stays in the browser's history as that POST,
 * which Back and "Confirm form resubmission" send again, password and all. The account view's too: most carry one, and
 * each ends on the view fetched again, as the account now is.
 */
const FLASHED_FORMS: ReadonlySet<string> = new Set(['login', 'email-code', ...ACCOUNT_FORMS.filter((form) => form !== SIGN_OUT_FORM)])

/** The text a refusal of the post itself shows, in the posted page's language: its body's size, its type, or what the guard said. */
function refusalText (error: FastifyError | HttpError, messages: Messages): string {
  if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') return messages.text('server.formTooLarge')
  if (error.statusCode === 415) return messages.text('server.formType')
  return textOf(error, messages)
}

/**
 * `POST /`: the page's forms posted without scripts, or before they load
 * (docs/no-script.md). Each is answered as the page's scripts would answer
 * it, through the same edge routes the scripts call (inner-call.ts): a page
 * re-rendered with what the scripts would show, or a 303 onward. The post
 * is refused as the page's JSON calls are when it is not from the page's
 * own origin (403), and when its body is not a small URL-encoded form
 * (415, 413, 400); each refusal is a page too.
 */
export async function formPosts (app: FastifyInstance, options: FormPostsOptions): Promise<void> {
  const { config, trust, answerPage, flash } = options
  const repeats = new RepeatedPosts<{ readonly outcome: FormOutcome, readonly carried: ReadonlyArray<readonly [string, ReturnType<FastifyReply['getHeader']>]> }>()

  app.addHook('onRequest', rejectCrossSiteRequests)
  app.addHook('onRequest', requireContentType([FORM_TYPE]))
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'buffer', bodyLimit: FORM_POST_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body))

  const addressOf = (request: FastifyRequest): URLSearchParams => {
    const queryStart = request.url.indexOf('?')
    return new URLSearchParams(queryStart === -1 ? '' : request.url.slice(queryStart + 1))
  }
  const addressView = (request: FastifyRequest): RenderedView => viewFrom(addressOf(request).get('view'), options.passwordResetCompletion)
  const pageMessages = (request: FastifyRequest): Messages => {
    const queryStart = request.url.indexOf('?')
    return app.messagesFor(request, queryStart === -1 ? '' : request.url.slice(queryStart + 1))
  }

  app.setErrorHandler(async (error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) logFailure(request, 'error', error, 'form post failed')
    else if (error instanceof FormFieldsError) request.log.info({ reason: error.reason }, 'form post refused: form unreadable')
    const messages = pageMessages(request)
    const text = status === 500 ? messages.text('server.failure') : refusalText(error, messages)
    return answerPage(request, reply, {
      status,
      state: { view: addressView(request), email: '', notice: { kind: 'error', text }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null }
    })
  })

  app.post('/', async (request, reply) => {
    // HTTP/1.0 may omit it; the page's address, its cookie domain and the redirect's fallback all read it.
    if (request.headers.host === undefined || request.headers.host === '') throw new HttpError(400, 'server.formNoHost')
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const fields = readFormFields(body)
    const handler = Object.hasOwn(FORMS, fields.one('form')) ? FORMS[fields.one('form')]! : null
    if (handler === null) throw new FormFieldsError('unknown form')
    const query = addressOf(request)
    const hostname = statedHostName(request.raw, trust)
    const cookieDomain = cookieDomainFor(hostname, config.cookieDomain)
    // The site origin a refused redirect target falls back to: PUBLIC_URL's when set, else the request's own.
    const origin = config.publicOrigin ?? new URL(`${request.protocol}://${request.host}`).origin
    const messages = pageMessages(request)
    const redirectTarget = (): string =>
      // The hash of the page's address never reaches the server: the target is followed without it.
      safeRedirectTarget(pageQueryContext(query).redirect, { origin, hash: '' }, { cookieDomain, allowedHosts: config.redirectAllowedHosts })
    const localAccounts = resolveLocalAccounts(query, hostname, config.localAccountsAllowedHosts)
    const post: FormPost = {
      fields,
      messages,
      query: request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '',
      view: viewFrom(query.get('view'), options.passwordResetCompletion),
      context: pageQueryContext(query),
      localAccounts,
      emailCodeOffered: emailCodeOffered(query, { enabled: config.emailCodes.enabled, productName: config.productName, localNetwork: localAccounts.kind !== 'off' }),
      resetToken: resetTokenFrom(query),
      rememberBrowserOffered: config.secondFactor.rememberBrowser,
      ssoDiscovery: config.ssoDiscovery,
      callAccounts: accountsCaller(request, reply, messages),
      account: visitorCalls(request, reply, { config, trust }),
      domainGate: domainGate(request, reply, { enabled: domainCheckRequested(query), timeoutMs: config.domainCheckTimeoutMs }),
      signIn: (tokens: SignedIn): FormOutcome => ({
        kind: 'redirect',
        location: redirectTarget(),
        // The edge's proxy set `refresh` (and `auth` with AUTH_COOKIE_HTTPONLY) on the call's answer, passed on by inner-call.ts.
        cookies: pageTokenCookies(tokens, cookieDomain, config.authCookieHttpOnly)
      }),
      signOut: (notice: string): FormOutcome => {
        const cookies = clearedTokenCookies(cookieDomain, config.authCookieHttpOnly)
        const location = redirectTarget()
        if (location !== new URL('/', origin).href) return { kind: 'redirect', location, cookies }
        // No target, or none that is safe: the login view, told so, after the 303 (the flash carries the notice).
        const told = { status: 200, state: { view: 'login', email: '', notice: { kind: 'success', text: notice }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null } } as const
        return { kind: 'redirect', location: '/', cookies: [...cookies, flash.cookieFor(told, Date.now(), messages.text('error.GENERIC'))] }
      },
      cookie: (name) => cookieOf(request.headers.cookie, name)
    }
    // The key holds a digest, never the body: it holds passwords. The cookies name the visitor: two
    // behind one address posting the same fieldless form (`logout`) are two posts, and one's answer,
    // which may carry its token cookies, is never the other's.
    const digest = createHash('sha256').update(request.url).update('\0').update(request.headers.cookie ?? '').update('\0').update(body).digest('base64url')
    const { answer: { outcome, carried }, repeated } = await repeats.once(`${request.ip} ${digest}`, async () => {
      const outcome = await handler(post)
      return { outcome, carried: CARRIED_HEADERS.map((name) => [name, reply.getHeader(name)] as const) }
    })
    if (repeated) {
      request.log.info('form post repeated: the first one\'s answer given again')
      for (const [name, value] of carried) if (value !== undefined) void reply.header(name, value)
    }
    if (outcome.kind === 'page' && FLASHED_FORMS.has(fields.one('form'))) {
      const queryStart = request.url.indexOf('?')
      return reply.code(303)
        .header('set-cookie', flash.cookieFor(outcome, Date.now(), messages.text('error.GENERIC')))
        .header('location', queryStart === -1 ? '/' : `/${request.url.slice(queryStart)}`)
        .header('cache-control', 'no-store')
        .send()
    }
    if (outcome.kind === 'page') return answerPage(request, reply, outcome)
    if (outcome.kind === 'identity-provider') {
      return reply.code(200).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(identityProviderPage(outcome.location, messages))
    }
    if (outcome.kind === 'sign-out') return options.answerSignOutPage(request, reply, outcome)
    // A cookie a call's answer set already (token/revoke's clearing, inner-call.ts) is not set twice.
    const set = reply.getHeader('set-cookie')
    const already = new Set(Array.isArray(set) ? set : typeof set === 'string' ? [set] : [])
    for (const cookie of outcome.cookies) if (!already.has(cookie)) void reply.header('set-cookie', cookie)
    return reply.code(303).header('location', outcome.location).header('cache-control', 'no-store').send()
  })
}
