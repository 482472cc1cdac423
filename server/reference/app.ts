import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { say } from './languages/answer-texts.js'
import { requestFacts as factsOf, requestLocale, sendAnswer, sendRedirect, type Answer, type RequestFacts } from './http/answers.js'
import { answerErrorsAsJson } from './http/error-answers.js'
import { NONCE_SECRET_MAX_LENGTH, type GoogleCredential } from './google/google-id-token.js'
import type { ReferenceMetrics, SignInMethod } from './metrics/metrics.js'
import { KEY_SET_MAX_AGE_SECONDS } from './keys/signing-keys.js'
import type { ReferenceServices } from './services.js'
import { socialRoutes } from './social/routes.js'
import { sendSsoReply, ssoRoutes } from './sso/routes.js'
import type { SsoReply } from './sso/sso-flows.js'
import { parseLoginContext } from './http/validation.js'
import { SOCIAL_COMPLETION_METHOD } from '../../common/social/social-providers.js'

/**
 * The services the routes call, as createReferenceServices makes them. The
 * passkey, second-factor and email-code paths are served only where those are on (their
 * services are not null); the account view's calls always, and with them
 * `reauthenticate`: a password change or a deletion needs a fresh proof
 * whatever factors are on.
 */
export interface ReferenceAppOptions extends Pick<ReferenceServices,
  | 'passwordSignIn' | 'registration' | 'resetRequest' | 'resetCompletion' | 'googleSignIn' | 'googleRegistration' | 'sessionTokens'
  | 'verification' | 'browserNotices' | 'undoChange' | 'recentFactors' | 'tokens' | 'sso' | 'social' | 'passkeys' | 'secondFactors' | 'emailCodes'
  | 'reauthentication' | 'otherSessions' | 'passwordChange' | 'addressChange' | 'account' | 'pseudonyms'> {
  /** Counts the sign-in calls' answers. */
  readonly metrics: Pick<ReferenceMetrics, 'countSignIn'>
}

/** The bearer credential of an Authorization header, if any. */
function bearerToken (request: FastifyRequest): string | null {
  const match = /^Bearer\s+([\w.~+/=-]{1,8192})$/i.exec(request.headers.authorization ?? '')
  return match === null ? null : match[1]!
}

/** A field of a JSON body, whatever the body is. */
export function field (body: unknown, name: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined
}

/** The ID token of a Google sign-in, and the nonce secret of the page that asked for it. */
function googleCredential (request: FastifyRequest): GoogleCredential {
  const nonceSecret = field(request.body, 'google_nonce_secret')
  return {
    idToken: bearerToken(request),
    nonceSecret: typeof nonceSecret === 'string' && nonceSecret.length <= NONCE_SECRET_MAX_LENGTH ? nonceSecret : null
  }
}

function query (request: FastifyRequest, name: string): unknown {
  return (request.query as Record<string, unknown> | null)?.[name]
}

function cookie (request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return decodeURIComponent(value.join('='))
  }
  return undefined
}

/** A second-factor answer names the code it checked: a recovery code, or else the authenticator's. */
export function secondFactorMethod (body: unknown): SignInMethod {
  return field(body, 'recovery_code') === undefined ? 'second_factor' : 'recovery_code'
}

/**
 * The reference accounts service's HTTP interface: the spec's calls, reset
 * completion, token refresh and revocation, the public key set, single
 * sign-on, and the links emailed to owners (verification, "was this you?").
 */
export async function referenceAccountsApp (app: FastifyInstance, options: ReferenceAppOptions): Promise<void> {
  const { verification, browserNotices, undoChange, recentFactors, tokens, sso, social, passkeys, secondFactors, emailCodes, reauthentication, otherSessions, account, pseudonyms, metrics } = options
  // Each request's events that the account's owner sees are kept with where it came from (server/reference/audit/audit.ts).
  const requestFacts = (request: FastifyRequest, reply: FastifyReply): RequestFacts => {
    const facts = factsOf(request, reply, pseudonyms)
    return { ...facts, activity: account.events.sinkFor(facts) }
  }
  const countSignIn = (method: SignInMethod, answering: Promise<Answer>): Promise<Answer> =>
    metrics.countSignIn(method, answering, (answer) => answer)
  // An SSO completion answers JSON; a redirect would be the provider's leg, not a sign-in yet.
  const countSsoSignIn = (answering: Promise<SsoReply>): Promise<SsoReply> =>
    metrics.countSignIn('sso', answering, (reply) => reply.kind === 'answer' ? reply.answer : null)
  answerErrorsAsJson(app)
  await app.register(ssoRoutes, { sso, pseudonyms })
  // With the account view's facts: a link and an unlink are activity the owner sees.
  await app.register(socialRoutes, { social, pseudonyms, facts: requestFacts })

  app.post('/v2/login', async (request, reply) =>
    sendAnswer(reply, await countSignIn('password', options.passwordSignIn.login(request.body, requestFacts(request, reply)))))

  app.post('/register', async (request, reply) =>
    sendAnswer(reply, await options.registration.register(request.body, requestFacts(request, reply))))

  app.post('/resetPasswordRequest', async (request, reply) =>
    sendAnswer(reply, await options.resetRequest.request(request.body, requestFacts(request, reply))))

  app.post('/resetPassword', async (request, reply) =>
    sendAnswer(reply, await options.resetCompletion.complete(request.body, requestFacts(request, reply))))

  // Links opened from an email: top-level GETs that land on the page. Only the address's own
  // verification acts on the GET; the others wait for the owner on the page (server/reference/password-reset/password-links.ts).
  app.get('/verifyEmail', async (request, reply) =>
    sendRedirect(reply, await verification.verify(query(request, 'token'), requestFacts(request, reply))))

  app.post('/verifyEmailRequest', async (request, reply) =>
    sendAnswer(reply, await verification.resend(request.body, requestFacts(request, reply))))

  app.get('/endSessions', async (request, reply) =>
    sendRedirect(reply, await browserNotices.endSessions(query(request, 'token'), requestFacts(request, reply))))

  app.get('/undoChange', async (request, reply) =>
    sendRedirect(reply, await undoChange.land(query(request, 'token'), requestFacts(request, reply))))

  app.get('/confirmEmail', async (request, reply) =>
    sendRedirect(reply, await options.addressChange.land(query(request, 'token'), requestFacts(request, reply))))

  app.post('/recentFactors/remove', async (request, reply) =>
    sendAnswer(reply, await recentFactors.remove(request.body, requestFacts(request, reply))))

  app.post('/v2/auth/login', async (request, reply) => {
    const method = field(request.body, 'login_method')
    if (method === 'GOOGLE') {
      return sendAnswer(reply, await countSignIn('google',
        options.googleSignIn.login(googleCredential(request), parseLoginContext(request.body), requestFacts(request, reply))))
    }
    if (method === 'OIDC' || method === 'SAML') {
      return sendSsoReply(reply, await countSsoSignIn(sso.completion.login(request.body, request.headers.cookie, requestFacts(request, reply))))
    }
    if (method === SOCIAL_COMPLETION_METHOD) {
      return sendAnswer(reply, await countSignIn('social', social.completion.login(request.body, request.headers.cookie, requestFacts(request, reply))))
    }
    return sendAnswer(reply, { status: 400, body: { error: say({ locale: requestLocale(request) }, 'method.loginUnsupported') } })
  })

  app.post('/auth/register', async (request, reply) => {
    const method = field(request.body, 'register_method')
    if (method === 'GOOGLE') return sendAnswer(reply, await options.googleRegistration.register(googleCredential(request), requestFacts(request, reply)))
    if (method === 'OIDC' || method === 'SAML') {
      return sendSsoReply(reply, await sso.completion.register(request.body, request.headers.cookie, requestFacts(request, reply)))
    }
    return sendAnswer(reply, { status: 400, body: { error: say({ locale: requestLocale(request) }, 'method.signUpUnsupported') } })
  })

  if (passkeys !== null) {
    app.post('/passkeys/login/options', async (_request, reply) =>
      sendAnswer(reply, await passkeys.signIn.loginOptions()))
    app.post('/passkeys/login', async (request, reply) =>
      sendAnswer(reply, await countSignIn('passkey', passkeys.signIn.login(request.body, requestFacts(request, reply)))))
    app.post('/passkeys/register/options', async (request, reply) =>
      sendAnswer(reply, await passkeys.registration.registerOptions(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/passkeys/register', async (request, reply) =>
      sendAnswer(reply, await passkeys.registration.register(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/passkeys/reauthenticate/options', async (request, reply) =>
      sendAnswer(reply, await passkeys.reauthentication.reauthenticateOptions(bearerToken(request), requestFacts(request, reply))))
    app.post('/passkeys/reauthenticate', async (request, reply) =>
      sendAnswer(reply, await passkeys.reauthentication.reauthenticate(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/passkeys/remove', async (request, reply) =>
      sendAnswer(reply, await passkeys.removal.remove(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/passkeys/list', async (request, reply) =>
      sendAnswer(reply, await passkeys.list.list(bearerToken(request), requestFacts(request, reply))))
    app.post('/passkeys/rename', async (request, reply) =>
      sendAnswer(reply, await passkeys.rename.rename(bearerToken(request), request.body, requestFacts(request, reply))))
  }

  if (secondFactors !== null) {
    app.post('/second-factor/verify', async (request, reply) =>
      sendAnswer(reply, await countSignIn(secondFactorMethod(request.body), secondFactors.codeStep.verify(request.body, requestFacts(request, reply)))))
    app.post('/second-factor/enrol/start', async (request, reply) =>
      sendAnswer(reply, await secondFactors.enrolment.start(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/second-factor/enrol/confirm', async (request, reply) =>
      sendAnswer(reply, await secondFactors.enrolment.confirm(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/second-factor/remove', async (request, reply) =>
      sendAnswer(reply, await secondFactors.changes.remove(bearerToken(request), requestFacts(request, reply))))
    app.post('/second-factor/recovery-codes', async (request, reply) =>
      sendAnswer(reply, await secondFactors.changes.renewRecoveryCodes(bearerToken(request), requestFacts(request, reply))))
    app.post('/second-factor/forget-browsers', async (request, reply) =>
      sendAnswer(reply, await secondFactors.changes.forgetBrowsers(bearerToken(request), requestFacts(request, reply))))
  }

  // Emailed codes (docs/reference-service.md#emailed-codes): `send` takes the signed-in owner's auth for a fresh proof's code.
  if (emailCodes !== null) {
    app.post('/email-code/send', async (request, reply) =>
      sendAnswer(reply, await emailCodes.sending.send(bearerToken(request), request.body, requestFacts(request, reply))))
    app.post('/email-code/login', async (request, reply) =>
      sendAnswer(reply, await countSignIn('email_code', emailCodes.signIn.login(request.body, requestFacts(request, reply)))))
  }

  // The account view (docs/account-changes.md), served whatever factors are on, with the fresh proof its changes ask for.
  app.post('/reauthenticate', async (request, reply) =>
    sendAnswer(reply, await reauthentication.withSecret(bearerToken(request), request.body, requestFacts(request, reply))))
  app.post('/account/overview', async (request, reply) =>
    sendAnswer(reply, await account.overviews.overview(bearerToken(request), requestFacts(request, reply))))
  app.post('/sessions/list', async (request, reply) =>
    sendAnswer(reply, await account.sessions.list(bearerToken(request), requestFacts(request, reply))))
  app.post('/sessions/end', async (request, reply) =>
    sendAnswer(reply, await account.sessions.end(bearerToken(request), request.body, requestFacts(request, reply))))
  app.post('/sessions/end-others', async (request, reply) =>
    sendAnswer(reply, await otherSessions.endOthers(bearerToken(request), requestFacts(request, reply))))
  app.post('/activity/list', async (request, reply) =>
    sendAnswer(reply, await account.activity.list(bearerToken(request), requestFacts(request, reply))))
  app.post('/account/delete', async (request, reply) =>
    sendAnswer(reply, await account.deletion.delete(bearerToken(request), request.body, requestFacts(request, reply))))

  app.post('/password/change', async (request, reply) =>
    sendAnswer(reply, await options.passwordChange.change(bearerToken(request), request.body, requestFacts(request, reply))))

  app.post('/email/change', async (request, reply) =>
    sendAnswer(reply, await options.addressChange.request(bearerToken(request), request.body, requestFacts(request, reply))))

  app.post('/email/confirm', async (request, reply) =>
    sendAnswer(reply, await options.addressChange.confirm(request.body, requestFacts(request, reply))))

  app.post('/token/refresh', async (request, reply) =>
    sendAnswer(reply, await options.sessionTokens.refresh(field(request.body, 'refresh') ?? cookie(request, 'refresh'), requestFacts(request, reply))))

  app.post('/token/revoke', async (request, reply) =>
    sendAnswer(reply, await options.sessionTokens.revoke(field(request.body, 'refresh') ?? cookie(request, 'refresh'), requestFacts(request, reply))))

  app.get('/.well-known/jwks.json', async (_request, reply) =>
    reply.header('cache-control', `public, max-age=${KEY_SET_MAX_AGE_SECONDS}`).send(tokens.keySet()))
}
