import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  CHALLENGE_HEADER,
  CHALLENGE_REQUIRED_REASON,
  CHALLENGE_REQUIRED_STATUS,
  CHALLENGED_PATHS,
  type ChallengeRequired,
  type ChallengeSpec,
  type ChallengedPath
} from '../../../common/challenge/challenge.js'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { clientAddress } from '../http/client-address.js'
import { isFormPostCall } from '../no-script/inner-call.js'
import { canonicalHostName, statedHostName, type AllowedHosts } from '../http/host-header.js'
import { topLevelMembers } from '../domain-check/login-emails.js'
import type { ProxyTrust } from '../http/trusted-proxy.js'
import { answerShape } from '../metrics/sign-in-metrics.js'
import type { ChallengeSettings } from './challenge-config.js'
import type { EdgeKeys } from '../keys/edge-secrets.js'
import type { KnownBrowsers } from '../known-browsers/known-browser.js'
import { checkProofOfWork, issueProofOfWork, type ChallengeBinding, type Refusal } from './proof-of-work.js'
import { verifyProviderToken } from './provider-token.js'
import { accountKeyFor, rangeKeyFor, riskRangeOf, type Risk } from './risk.js'
import type { SingleUse } from './single-use.js'

const GUARDED: ReadonlySet<string> = new Set(CHALLENGED_PATHS)

/**
 * The guarded calls that are logins, a password's or an emailed code's
 * (docs/email-codes.md): judged by their account however they are sent, and
 * counted by their answer, a refusal as a failure and tokens (or a second
 * factor due) as a success.
 */
const LOGIN_PATHS: ReadonlySet<string> = new Set<ChallengedPath>(['v2/login', 'email-code/login'])

/** Asking for an emailed code: counted toward its range and its address when passed on, as a login's attempt is before its answer. */
const CODE_REQUEST_PATH: ChallengedPath = 'email-code/send'

export interface ChallengeGateOptions {
  readonly settings: ChallengeSettings
  readonly keys: EdgeKeys
  readonly risk: Risk
  readonly singleUse: SingleUse
  /** The edge's own known-browser cookie (server/edge/known-browsers/known-browser.ts): on the page's calls and on its forms posted without scripts alike. */
  readonly knownBrowsers: KnownBrowsers
  /** Where the JSON calls are mounted (`/accounts`). */
  readonly prefix: string
  /** The hosts the edge serves (ALLOWED_HOSTS, else PUBLIC_URL's host); null: any, and a provider's token must then name the request's own host. */
  readonly servedHosts: AllowedHosts
  readonly trust: ProxyTrust | null
  readonly now?: () => number
}

interface JudgedCall {
  readonly path: ChallengedPath
  /** The client's range, keyed (risk.ts rangeKeyFor). */
  readonly range: string
  /** The account the body names, keyed; none when it names no address (or not as a string): at most one, see `judged`. */
  readonly accounts: readonly string[]
  /**
   * Whether the account's count is read: not for a browser that signed in to
   * it before (the edge's known-browser cookie, which a form posted without
   * scripts carries too: server/edge/no-script/inner-call.ts), nor for a registration,
   * reset or verification-link request posted without scripts, which guesses
   * no password and is the no-script owner's way out (docs/challenge.md,
   * "The owner's way in"). A login is judged by it however it is sent: a
   * form post is no way around it.
   */
  readonly accountSignal: boolean
}

/**
 * The challenge at the edge (docs/challenge.md): a `preHandler` for the
 * JSON accounts calls, which asks for a challenge on the guarded calls
 * ({@link CHALLENGED_PATHS}) once risk has risen, and checks the solution
 * the page sends back; and what it learns from the backend's answers
 * (`noteAnswer` for server/edge/upstream/json-answers.ts, `onResponse` as a hook): failed and
 * successful logins, and calls the backend shed (503). A successful login
 * also marks its browser as known to the account (`onSend`, server/edge/known-browsers/known-browser.ts).
 * At level 0 a guarded call costs one read of the counts.
 * A guarded call whose body names `email` more than once is answered 400.
 * Nothing of a body is kept or logged: accounts and ranges are keyed hashes.
 */
export function challengeGate (options: ChallengeGateOptions) {
  const { settings, keys, risk, singleUse, knownBrowsers, prefix, servedHosts, trust } = options
  const now = options.now ?? Date.now
  const provider = settings.provider
  const pseudonym = (text: string): string => createHmac('sha256', keys.pseudonym).update(text).digest('base64url').slice(0, 22)
  const answered = new WeakMap<FastifyRequest, Readonly<Record<string, unknown>>>()
  // The judged call, kept from the preHandler for its answer: the body is read once.
  const judgedCalls = new WeakMap<FastifyRequest, JudgedCall>()

  /**
   * The guarded call's path, range and account; null for any other call, or
   * `severalEmails` for a body that names `email` more than once. Such a body
   * is refused, never judged: the gate and the backend could read different
   * members (JSON.parse keeps the last, other parsers the first), so the
   * gate's count would be another account's than the one tried, and a login
   * that succeeded for one would clear the other's. The page never sends one.
   */
  function judged (request: FastifyRequest): JudgedCall | 'severalEmails' | null {
    const path = (request.routeOptions.url ?? '').slice(prefix.length + 1)
    if (!GUARDED.has(path)) return null
    const range = rangeKeyFor(keys.pseudonym, riskRangeOf(clientAddress(request)))
    const emails = Buffer.isBuffer(request.body) ? topLevelMembers(request.body.toString('utf8'), 'email') : []
    if (emails.length > 1) return 'severalEmails'
    // Not a string: the backend refuses the body; judged by its range alone.
    const accounts = typeof emails[0] === 'string' ? [accountKeyFor(keys.pseudonym, emails[0])] : []
    const knownBrowser = accounts.length === 1 && knownBrowsers.knows(request.headers.cookie, accounts[0]!)
    const sparedWithoutScripts = !LOGIN_PATHS.has(path) && isFormPostCall(request)
    return { path: path as ChallengedPath, range, accounts, accountSignal: !knownBrowser && !sparedWithoutScripts }
  }

  /** Whether the backend signed in the account of a judged login (tokens, or a second factor due: the password was right). */
  function signedIn (request: FastifyRequest, status: number, call: JudgedCall): boolean {
    const answer = answered.get(request)
    return LOGIN_PATHS.has(call.path) && answer !== undefined && status >= 200 && status <= 299 && ['tokens', 'challenge'].includes(answerShape(answer))
  }

  /** What a challenge for `call` is bound to; computed only above level 0, where a challenge is asked for or checked. */
  const bindingOf = (call: JudgedCall): ChallengeBinding => ({
    path: call.path,
    account: pseudonym(`accounts:${call.accounts.join(',')}`),
    range: call.range
  })

  async function challengeFor (call: JudgedCall, level: number): Promise<ChallengeSpec> {
    if (provider !== null) return { kind: provider.kind, siteKey: provider.siteKey }
    return { kind: 'pow', challenge: { ...await issueProofOfWork(keys, level, bindingOf(call), now()) } }
  }

  async function askForChallenge (request: FastifyRequest, reply: FastifyReply, call: JudgedCall, level: number, refusal: Refusal | null): Promise<FastifyReply> {
    const key: MessageKey = refusal === null ? 'server.challengeRequired' : 'server.challengeRefused'
    request.server.metrics?.challenge(call.path, refusal === null ? 'issued' : `refused_${refusal}`)
    if (refusal !== null) request.log.info({ reason: refusal, level }, 'challenge refused')
    const body: ChallengeRequired = {
      error: request.server.messagesFor(request).text(key),
      reason: CHALLENGE_REQUIRED_REASON,
      challenge: await challengeFor(call, level)
    }
    return await reply.code(CHALLENGE_REQUIRED_STATUS).send(body)
  }

  /** Whether a provider's token was solved on a page of this edge: a host it serves, or without ALLOWED_HOSTS the host this call names. */
  function isServedHost (request: FastifyRequest, hostname: string): boolean {
    const name = canonicalHostName(hostname)
    if (name === null) return false
    return servedHosts === null ? name === statedHostName(request.raw, trust) : servedHosts.has(name)
  }

  async function refusalOf (request: FastifyRequest, header: string, call: JudgedCall, level: number): Promise<Refusal | null> {
    if (provider !== null) {
      const verdict = await verifyProviderToken(provider, header, clientAddress(request), (hostname) => isServedHost(request, hostname))
      if (verdict === 'unverified') request.log.warn({ provider: provider.kind }, 'challenge token could not be verified at the provider')
      return verdict === 'passed' ? null : verdict
    }
    const checked = await checkProofOfWork(keys, header, bindingOf(call), level, now())
    if ('refused' in checked) return checked.refused
    return await singleUse.claim(checked.id, checked.expiresAt) ? null : 'reused'
  }

  return {
    preHandler: async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      const call = judged(request)
      if (call === null) return undefined
      if (call === 'severalEmails') return await reply.code(400).send({ error: request.server.messagesFor(request).text('server.challengeOneEmail') })
      judgedCalls.set(request, call)
      const level = await risk.levelFor(call.range, call.accounts, call.accountSignal)
      request.server.metrics?.challengeLevel(call.path, level)
      if (level > 0) {
        const header = request.headers[CHALLENGE_HEADER]
        if (header === undefined) return await askForChallenge(request, reply, call, level, null)
        const refusal = typeof header === 'string' ? await refusalOf(request, header, call, level) : 'malformed'
        if (refusal !== null) return await askForChallenge(request, reply, call, level, refusal)
        request.server.metrics?.challenge(call.path, 'passed')
      }
      // A code asked for counts against its range and its address (a storm at one inbox raises the
      // challenge for it); registrations, resets and verification links against their range.
      if (call.path === CODE_REQUEST_PATH) void risk.noteCodeRequest(call.range, call.accounts)
      else if (!LOGIN_PATHS.has(call.path)) void risk.noteRequest(call.range)
      return undefined
    },
    /** For server/edge/upstream/json-answers.ts: the backend's readable answer, whose shape tells a successful login. */
    noteAnswer: (request: FastifyRequest, answer: Readonly<Record<string, unknown>>): void => {
      answered.set(request, answer)
    },
    /**
     * An `onSend` hook: a login the backend accepted marks its browser as
     * known to the account (server/edge/known-browsers/known-browser.ts), as a form post's call does
     * for the visitor's browser (server/edge/no-script/inner-call.ts passes it back).
     */
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
      const call = judgedCalls.get(request)
      if (call !== undefined && call.accounts.length === 1 && signedIn(request, reply.statusCode, call)) {
        void reply.header('set-cookie', knownBrowsers.remember(request.headers.cookie, call.accounts[0]!))
      }
      return payload
    },
    /**
     * An `onResponse` hook: a login the backend refused (401, or its own 429)
     * counts; one that succeeded clears its account, the one address the
     * body named and so the one the backend signed in. A guarded call the
     * backend itself answered 503 (overloaded: its hash gate shed it) counts
     * toward its range and the burst: a flood the backend sheds otherwise
     * costs the attacker nothing and never raises the risk. The edge's own
     * 503 (the backend unreachable) is no answer of the backend's and
     * counts nothing.
     */
    onResponse: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const answer = answered.get(request)
      const call = judgedCalls.get(request)
      if (answer === undefined || call === undefined) return
      const status = reply.statusCode
      if (status === 503) await risk.noteShedCall(call.range)
      else if (!LOGIN_PATHS.has(call.path)) return
      else if (status === 401 || status === 429) await risk.noteFailedLogin(call.range, call.accounts)
      else if (signedIn(request, status, call)) await risk.noteSuccessfulLogin(call.accounts)
    }
  }
}

export type ChallengeGate = ReturnType<typeof challengeGate>
