// The mixed load of npm run load:faults, sent through nginx as visitors and a
// product's servers would send it: the page, registrations, right logins,
// wrong-then-right logins, and sessions that each refresh their token
// periodically. Every call's outcome goes to the current window (one per
// fault), which the run then judges. No password or token is ever printed:
// outcomes are kept as statuses and counts.
import { randomBytes } from 'node:crypto'
import { createCaller } from './calls.mjs'

/** A product retries a failed call after Retry-After, here at most this long, so that a run stays short. */
const LONGEST_RETRY_WAIT_MS = 2000
/** A visitor (or a product) stops retrying one call after this long; the call is then given up. */
const GIVE_UP_AFTER_MS = 60_000

/** @import { Answer } from './calls.mjs' */
/** @typedef {{ email: string, password: string, wrong: number, busy: boolean }} Account */
/** @typedef {{ id: number, token: string | null, okAt: number }} SessionClient */
/**
 * The outcomes of the calls made while one fault ran (times in ms since the epoch).
 * @typedef {object} LoadWindow
 * @property {string} name
 * @property {number} calls
 * @property {number[]} successes when each call that went as expected ended
 * @property {Map<string, number>} errors each kind of unexpected answer, counted
 * @property {number[]} errorTimes when each failure (5xx, no answer) came
 * @property {number} gaveUp
 * @property {string[]} acknowledged the emails whose registration was answered 200
 * @property {number} toldTaken
 * @property {number} rightTried
 * @property {Array<{ kind: string, status: number, reason: string | null }>} rightRefused
 * @property {Array<{ session: number, reason: string | null }>} lost
 */

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms))
const jitter = (/** @type {number} */ ms) => Math.round(ms * (0.75 + Math.random() / 2))
const secret = () => randomBytes(12).toString('base64url')

/**
 * The load, not yet running. `port`: nginx's https port; `host`: the site's
 * host name. `sessions` clients each refresh every `refreshEveryMs`.
 * @param {{ port: number, host: string, runId: string, sessions?: number, refreshEveryMs?: number, loginWorkers?: number }} options
 */
export function createLoad ({ port, host, runId, sessions = 16, refreshEveryMs = 1000, loginWorkers = 2 }) {
  const { call, close } = createCaller({ port, host })
  /**
   * Accounts whose password the load knows: seeded, then every acknowledged registration.
   * @type {Account[]}
   */
  const accounts = []
  /** @type {string[]} */
  const acknowledged = []
  let registrations = 0
  let running = false
  /** @type {Promise<void>[]} */
  const workers = []
  /**
   * The session clients: each holds one refresh token at a time (in memory only).
   * @type {SessionClient[]}
   */
  const clients = []
  let sessionIds = 0
  /** @type {LoadWindow | null} */
  let window = null

  const failed = (/** @type {Answer} */ answer) => answer.status === 0 || answer.status >= 500

  /**
   * Notes an outcome in the current window: ok, a client-visible error (5xx, no answer) or a wrong answer.
   * @param {string} kind
   * @param {Answer} answer
   * @param {number[]} expected
   */
  function note (kind, answer, expected) {
    if (window === null) return
    const at = Date.now()
    window.calls++
    if (expected.includes(answer.status)) {
      window.successes.push(at)
      return
    }
    const label = `${kind} ${answer.status === 0 ? `no answer (${answer.error})` : answer.status}`
    window.errors.set(label, (window.errors.get(label) ?? 0) + 1)
    if (failed(answer)) window.errorTimes.push(at)
  }

  /**
   * Sends a call until it is answered by other than a failure (5xx, no answer), waiting as a product would; null when given up.
   * @param {string} kind
   * @param {() => Promise<Answer>} send
   * @param {number[]} expected
   * @returns {Promise<Answer | null>}
   */
  async function withRetries (kind, send, expected) {
    const started = Date.now()
    for (;;) {
      const answer = await send()
      note(kind, answer, expected)
      if (!failed(answer)) return answer
      if (!running || Date.now() - started > GIVE_UP_AFTER_MS) {
        if (window !== null) window.gaveUp++
        return null
      }
      await sleep(jitter(Math.min(answer.retryAfterMs ?? 300, LONGEST_RETRY_WAIT_MS)))
    }
  }

  /**
   * A right password must be let in: anything but 200, once retries are done, is a refusal.
   * @param {Account} account
   * @param {string} kind
   */
  async function rightLogin (account, kind) {
    if (window !== null) window.rightTried++
    const answer = await withRetries(kind, () => call('POST', '/accounts/v2/login', { email: account.email, password: account.password }), [200])
    if (answer === null || answer.status === 200) return answer
    if (window !== null) window.rightRefused.push({ kind, status: answer.status, reason: answer.json?.reason ?? null })
    return null
  }

  /**
   * @param {string} email
   * @param {string} password
   */
  async function register (email, password) {
    let failedBefore = false
    const answer = await withRetries('register', async () => {
      const sent = await call('POST', '/accounts/register', { email, password, confirm_password: password })
      if (failed(sent)) failedBefore = true
      return sent
    }, [200])
    if (answer?.status === 200) {
      acknowledged.push(email)
      window?.acknowledged.push(email)
      accounts.push({ email, password, wrong: 0, busy: false })
    } else if (answer?.status === 409 && failedBefore && window !== null) {
      // A registration told "failed", then "taken" on the retry: half done (docs/accounts-api.openapi.yaml, register 409).
      window.toldTaken++
    }
    return answer
  }

  /** @param {boolean} forWrong */
  function pickAccount (forWrong) {
    const free = accounts.filter((account) => !account.busy && (!forWrong || account.wrong < 8))
    if (free.length === 0) return null
    // The least tried first: an account's failures from everywhere slow it after 10 (docs/reference-service.md, "Login throttles").
    const account = free.reduce((best, candidate) => candidate.wrong < best.wrong ? candidate : best)
    account.busy = true
    return account
  }

  async function pageWorker () {
    while (running) {
      note('page', await call('GET', '/'), [200])
      await sleep(jitter(250))
    }
  }

  async function registrationWorker () {
    while (running) {
      await register(`fault-${runId}-${++registrations}@example.com`, secret())
      await sleep(jitter(300))
    }
  }

  /** @param {number} index */
  async function loginWorker (index) {
    for (let turn = index; running; turn++) {
      const wrongFirst = turn % 2 === 1
      const account = pickAccount(wrongFirst)
      if (account === null) {
        await sleep(100)
        continue
      }
      try {
        if (wrongFirst) {
          account.wrong++
          note('wrong login', await call('POST', '/accounts/v2/login', { email: account.email, password: secret() }), [401])
          await rightLogin(account, 'right login after a wrong one')
        } else {
          await rightLogin(account, 'right login')
        }
      } finally {
        account.busy = false
      }
      await sleep(jitter(100))
    }
  }

  /**
   * Signs a session client in (a right login, retried until let in); false when it could not be.
   * @param {SessionClient} client
   */
  async function signIn (client) {
    for (;;) {
      const account = pickAccount(false)
      if (account === null) {
        await sleep(100)
        continue
      }
      const answer = await rightLogin(account, 'session sign-in').finally(() => { account.busy = false })
      if (answer?.status !== 200) return false
      Object.assign(client, { id: ++sessionIds, token: answer.json?.refresh ?? null, okAt: Date.now() })
      return true
    }
  }

  /** @param {SessionClient} client */
  async function sessionWorker (client) {
    await sleep(Math.random() * refreshEveryMs)
    while (running) {
      if (client.token === null && !await signIn(client)) {
        await sleep(500)
        continue
      }
      await sleep(jitter(refreshEveryMs))
      if (!running) break
      const answer = await withRetries('refresh', () => call('POST', '/accounts/token/refresh', { refresh: client.token }), [200])
      if (answer === null) continue
      if (answer.status === 200) {
        client.token = answer.json?.refresh ?? null
        client.okAt = Date.now()
      } else if (answer.status === 401) {
        // Its owner never ended it: the session was lost.
        window?.lost.push({ session: client.id, reason: answer.json?.reason ?? null })
        client.token = null
      }
    }
  }

  return {
    accounts,
    acknowledged,
    call,
    /**
     * Registers `count` accounts for the logins, a few at a time, before the load starts.
     * @param {number} count
     */
    async seed (count) {
      const queue = Array.from({ length: count }, (_, index) => index)
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (queue.length > 0) {
          const index = queue.shift()
          const answer = await register(`seed-${runId}-${index}@example.com`, secret())
          if (answer?.status !== 200) throw new Error(`seeding an account failed: ${answer?.status ?? 'no answer'}`)
        }
      }))
    },
    start () {
      running = true
      for (let index = 0; index < sessions; index++) clients.push({ id: 0, token: null, okAt: 0 })
      workers.push(pageWorker(), registrationWorker(), ...Array.from({ length: loginWorkers }, (_, index) => loginWorker(index)),
        ...clients.map((client) => sessionWorker(client)))
    },
    async stop () {
      running = false
      await Promise.all(workers)
      close()
    },
    /**
     * Starts attributing outcomes to a new window, and returns it.
     * @param {string} name
     */
    beginWindow (name) {
      /** @type {LoadWindow} */
      const begun = {
        name, calls: 0, successes: [], errors: new Map(), errorTimes: [], gaveUp: 0,
        acknowledged: [], toldTaken: 0, rightTried: 0, rightRefused: [], lost: []
      }
      window = begun
      return begun
    },
    /** The sessions held now (their ids), to be judged after a fault. */
    liveSessions () {
      return new Set(clients.filter((client) => client.token !== null).map((client) => client.id))
    },
    /**
     * Waits (at most `timeoutMs`) until each of `sessionIds` has either
     * refreshed after `since` or been lost; answers how many did each, and
     * how many did neither.
     * @param {Set<number>} sessionIds
     * @param {number} since
     * @param {number} timeoutMs
     */
    async judgeSessions (sessionIds, since, timeoutMs) {
      const count = () => {
        const alive = clients.filter((client) => sessionIds.has(client.id) && client.okAt > since).length
        const lost = new Set((window?.lost ?? []).map((loss) => loss.session).filter((id) => sessionIds.has(id))).size
        return { alive, lost, stuck: sessionIds.size - alive - lost }
      }
      for (const deadline = Date.now() + timeoutMs; count().stuck > 0 && Date.now() < deadline;) await sleep(100)
      return count()
    }
  }
}
