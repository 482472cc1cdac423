import { startTransition, useEffect, useRef, useState } from 'react'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { PasswordLoginAnswer, SignedIn } from '../../common/http/accounts-answers.js'
import type { View } from '../page/page-params.js'
import type { PasskeySignInOutcome } from './passkey-ceremonies.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'
import { loadChunk } from '../page/load-chunk.js'

/** What passkeys use of the page (a passkey sign-in's end too: finishPasskeySignIn). */
type PasskeysPage = Pick<PageState, 'params' | 'messages' | 'context' | 'localMode' | 'leaving' | 'clearNotice' | 'fail' | 'storeLogin' | 'leaveToRedirect' | 'finishLogin' | 'noteMethod'>

type PasskeyChunk = typeof import('./index.js')

const browserHasWebAuthn = (): boolean => typeof PublicKeyCredential === 'function'


const loadPasskeyChunk = (): Promise<PasskeyChunk> => loadChunk(() => import('./index.js'))

/**
 * Passkeys on the page (docs/passkeys.md): the autofill request while the
 * login view shows, the button's prompt, and the upgrade after a password
 * sign-in. Offered only where the accounts service has them
 * (`passkeyRpId`), login_method permits the product's own method, the page
 * is not in local-network mode, and the browser has WebAuthn. The work is
 * in the passkey chunk (client/passkeys/), loaded when the login view opens:
 * this hook only holds the state and starts and stops the requests.
 */
export function usePasskeys (
  page: PasskeysPage, gate: DomainGate, config: RuntimeConfig, view: View,
  /** The SSO modal is open, or a second-factor step has the card: no autofill request meanwhile. */
  formCovered: boolean,
  /** After an upgrade that showed no offer, with the tokens stored: what comes next (the second-factor offer, or the redirect). */
  afterUpgrade: (login: SignedIn) => void
) {
  const rpId = config.passkeyRpId!
  // Every browser the page supports has WebAuthn: the server renders the button, and the rare browser without one drops it
  // after hydration, as a transition. An urgent update would reach a lazy view still waiting for its chunk (the register
  // view's "Sign up with a passkey"), and React would then render that view afresh, dropping what the visitor typed.
  const [webAuthn, setWebAuthn] = useState(true)
  useEffect(() => {
    if (!browserHasWebAuthn()) startTransition(() => setWebAuthn(false))
  }, [])
  const offered = config.passkeyRpId !== null && !page.localMode && page.params.loginMethods.has('password') && webAuthn
  const [chunk, setChunk] = useState<PasskeyChunk | null>(null)
  /** A passkey sign-in (the prompt is open, or the choice is being posted) or the upgrade runs: the page is busy. */
  const [running, setRunning] = useState<'sign-in' | 'upgrade' | null>(null)
  const [passwordTyped, setPasswordTyped] = useState(false)
  /** The auth token the offer would create a passkey for; null: no offer. */
  const [offerFor, setOfferFor] = useState<string | null>(null)
  const autofill = useRef<AbortController | null>(null)

  useEffect(() => {
    // The browser asked itself: the passkey chunk (and its autofill request) waits for no render.
    if (offered && view === 'login' && browserHasWebAuthn()) loadPasskeyChunk().then(setChunk, () => undefined)
  }, [offered, view])
  useEffect(() => setPasswordTyped(false), [view])

  // A request outlives renders: it must end with the page as it is then, not as it was when it started.
  const latest = useRef({ page, gate })
  latest.current = { page, gate }
  const finish = async (outcome: PasskeySignInOutcome, loaded: PasskeyChunk): Promise<void> => {
    await loaded.finishPasskeySignIn(outcome, latest.current.page, latest.current.gate, rpId)
    setRunning(null)
  }

  const autofillWanted = chunk !== null && view === 'login' && !formCovered && !passwordTyped && running === null &&
    offerFor === null && !page.leaving
  useEffect(() => {
    if (!autofillWanted) return
    const controller = new AbortController()
    autofill.current = controller
    void chunk.signInWithPasskey({
      mediation: 'conditional',
      signal: controller.signal,
      context: page.context,
      rpId,
      onChosen: () => {
        latest.current.page.clearNotice()
        latest.current.page.noteMethod('passkey')
        setRunning('sign-in')
      }
    }).then(async (outcome) => {
      // An autofill request that ended unpicked (aborted for the button's prompt, say) set nothing, and must reset nothing.
      if (outcome.kind !== 'cancelled') await finish(outcome, chunk)
    })
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new render must not restart the autofill request: finish and the page are read through latest
  }, [autofillWanted, chunk])

  return {
    offered,
    running,
    signingIn: running === 'sign-in',
    /** The offer's props, once an upgrade ended in it; null: no offer. */
    offer: offerFor !== null && chunk !== null
      ? {
          auth: offerFor,
          onCreate: () => chunk.createPasskey(offerFor),
          onNotNow: chunk.rememberNotNow,
          onDone: page.leaveToRedirect,
          // Back to the login view (its sign-in is a fresh proof), with the text of a session that ended.
          onSignInAgain (refusal: string | null): void {
            setOfferFor(null)
            if (refusal !== null) page.fail(refusal)
          },
          failurePauseMs: chunk.passkeyTimings.failurePauseMs
        }
      : null,
    /** Typing a password means the visitor chose it: the autofill request stops. */
    onPasswordTyped: (): void => {
      autofill.current?.abort()
      setPasswordTyped(true)
    },
    /** The button: the browser's prompt, once the autofill request is stopped (one ceremony at a time). */
    startModal: async (): Promise<void> => {
      autofill.current?.abort()
      page.clearNotice()
      page.noteMethod('passkey')
      setRunning('sign-in')
      const loaded = chunk ?? await loadPasskeyChunk()
      await finish(await loaded.signInWithPasskey({
        mediation: 'modal', signal: new AbortController().signal, context: page.context, rpId, onChosen: () => undefined
      }), loaded)
    },
    /**
     * After a password login through the accounts service: stores the tokens,
     * then the upgrade (or the offer) before the page leaves. False where
     * passkeys are not offered: the login ends as every login does.
     */
    afterPasswordLogin: (answer: PasswordLoginAnswer): boolean => {
      if (!offered || answer.kind !== 'tokens') return false
      if (!page.storeLogin(answer)) return true
      autofill.current?.abort()
      setRunning('upgrade')
      const upgrade = async (): Promise<PasskeyChunk | null> => {
        const loaded = chunk ?? await loadPasskeyChunk()
        return await loaded.upgradeAfterPassword(answer.auth) === 'offer' ? loaded : null
      }
      const goOn = (): void => {
        setRunning(null)
        afterUpgrade(answer)
      }
      // Whatever else happens (a passkey created, none to offer, the chunk not loading), the sign-in goes on.
      void upgrade().then((offering) => {
        if (offering === null) {
          goOn()
          return
        }
        setChunk(offering)
        setOfferFor(answer.auth)
        setRunning(null)
      }, goOn)
      return true
    }
  }
}
