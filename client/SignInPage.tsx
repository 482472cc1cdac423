import { createContext, useContext, useEffect, useState, type ComponentType } from 'react'
import type { MessageKey } from '../common/languages/message-catalogue.js'
import type { PageFormState } from '../common/page/page-render.js'
import type { RuntimeConfig } from '../common/page/runtime-config.js'
import { Spinner } from './components/Spinner.js'
import { Notice } from './components/Notice.js'
import { LazyPart } from './components/LazyPart.js'
import { lazyChunk } from './page/load-chunk.js'
import { useSignInFlows } from './page/useSignInFlows.js'
import { useAddressSearch } from './page/address-bar.js'
import { fetchLaterTexts } from './languages/later-texts.js'
import { MessagesContext, useMessages, withLaterTexts } from './languages/messages.js'
import { parsePageParams } from './page/page-params.js'
import { usePageHostname } from './page/page-address.js'
import { BackgroundVideo } from './brand/BackgroundVideo.js'
import { FORM_NOTICE_ID, type SignInMethods, type SsoDiscovered } from './page/form-view-props.js'
import type { LoginViewProps } from './sign-in/LoginView.js'
import type { RegisterViewProps } from './registration/RegisterView.js'
import type { AccountViewProps } from './account/AccountView.js'
import type { ResetPasswordViewProps } from './password-reset/ResetPasswordView.js'
import type { SetPasswordViewProps } from './password-reset/SetPasswordView.js'
import type { EmailCodeStepsProps } from './email-codes/EmailCodeSteps.js'
import type { SsoDiscoveryWatchProps } from './sso/SsoDiscovery.js'
import type { ReturnCompletionProps } from './page/ReturnCompletion.js'
import { useLastUsedMethod } from './sign-in/last-used-method.js'

// Shown only after a click or a login, never in the server's HTML: out of the first load (test/build/bundle-budget.integration.test.ts).
// Their texts too are later texts (common/languages/message-catalogue.ts), fetched with them.
const SsoModal = lazyChunk(async () => (await import('./sso/SsoModal.js')).withItsTexts())
const PasskeyOffer = lazyChunk(async () => (await import('./passkeys/PasskeyOffer.js')).withItsTexts())
/**
 * The completion of a return from single sign-on or a social provider: a chunk loaded only on such a
 * return. It renders nothing; the server renderer puts it here as it is (client/server-render.tsx), so
 * that no boundary of the server's HTML waits for its chunk.
 */
export const returnParts: { ReturnCompletion: ComponentType<ReturnCompletionProps> } = {
  ReturnCompletion: lazyChunk(() => import('./page/ReturnCompletion.js'))
}
/**
 * SSO_DISCOVERY's question about the typed address: a chunk loaded only where it is on. It renders
 * nothing; the server renderer puts it here as it is (client/server-render.tsx), so that no boundary
 * of the server's HTML waits for its chunk.
 */
export const discoveryParts: { SsoDiscoveryWatch: ComponentType<SsoDiscoveryWatchProps> } = {
  SsoDiscoveryWatch: lazyChunk(async () => (await import('./sso/SsoDiscovery.js')).watch())
}
const BreachedPasswordNotice = lazyChunk(async () => (await import('./breached-passwords/BreachedPasswordNotice.js')).withItsTexts())

/**
 * Each view's component, a chunk of its own (with its hook, calls and, for the account view, its texts),
 * so that a page's first load carries the view it opens on and no other (docs/performance.md, "The
 * first load's budget"). The page loads the opening view's chunk before it hydrates
 * (client/start-page.tsx), which the HTML names for the browser to fetch beside the entry
 * (build/client.mjs writes which chunk each view needs); a view opened later keeps its
 * LazyPart's spinner until its chunk is here. The server renders them as they are
 * (client/server-render.tsx puts them here).
 */
export const viewParts: {
  login: ComponentType<LoginViewProps>
  register: ComponentType<RegisterViewProps>
  resetPassword: ComponentType<ResetPasswordViewProps>
  setPassword: ComponentType<SetPasswordViewProps>
  account: ComponentType<AccountViewProps>
} = {
  login: lazyChunk(async () => ({ default: (await import('./sign-in/LoginView.js')).LoginView })),
  register: lazyChunk(() => import('./registration/RegisterView.js')),
  resetPassword: lazyChunk(() => import('./password-reset/ResetPasswordView.js')),
  setPassword: lazyChunk(() => import('./password-reset/SetPasswordView.js')),
  account: lazyChunk(async () => (await import('./account/AccountView.js')).withItsTexts())
}

/**
 * The emailed code's steps: a chunk of their own, with their texts, loaded when a step first shows. The
 * server renders them as they are (client/server-render.tsx puts them here), so that a form post's code step
 * (PageFormState.emailCodeSent) is in the HTML, and the page fetches the chunk at once to hydrate it (client/start-page.tsx).
 */
export const emailCodeParts: { EmailCodeSteps: ComponentType<EmailCodeStepsProps> } = {
  EmailCodeSteps: lazyChunk(async () => (await import('./email-codes/EmailCodeSteps.js')).withItsTexts())
}

type SignedInComponent = NonNullable<Awaited<ReturnType<typeof import('./sessions/SignedIn.js').forThisPage>>>
type SecondFactorStepsComponent = typeof import('./second-factor/SecondFactorSteps.js').default

type SecondFactorStepsProps = Parameters<SecondFactorStepsComponent>[0]

/**
 * The second factor's steps as the browser loads them: a chunk of their own,
 * fetched when a login first needs one (docs/page.md), together with their
 * texts when the edge left those out of the page (`laterTextsUrl`,
 * common/languages/message-catalogue.ts): both in parallel, rendered once both are here.
 */
export function lazySecondFactorSteps (laterTextsUrl?: string): ComponentType<SecondFactorStepsProps> {
  return lazyChunk(async () => {
    const [steps, later] = await Promise.all([
      import('./second-factor/SecondFactorSteps.js'),
      laterTextsUrl === undefined ? null : fetchLaterTexts(laterTextsUrl)
    ])
    if (later === null) return steps
    const Steps = steps.default
    return {
      default: function StepsWithTheirTexts (props: SecondFactorStepsProps) {
        return <MessagesContext.Provider value={withLaterTexts(useMessages(), later)}><Steps {...props} /></MessagesContext.Provider>
      }
    }
  })
}

/**
 * The second factor's steps. The page provides lazySecondFactorSteps with the
 * embedded texts' address (client/start-page.tsx); the server renderer
 * provides them imported, so that a form post's code step is in the HTML (its
 * texts embedded with it), and the browser hydrates it once the chunk has loaded.
 */
export const SecondFactorStepsContext = createContext<ComponentType<SecondFactorStepsProps>>(lazySecondFactorSteps())

/**
 * The sign-in page: one view of three (four with password reset completion),
 * chosen by the address bar. This component holds the layout and the choice
 * of view; the state and the flows live in hooks (useSignInFlows and the
 * hooks it names), and the views only render.
 */
export function SignInPage ({ config, formState = null }: { config: RuntimeConfig, formState?: PageFormState | null }) {
  const { text } = useMessages()
  const params = parsePageParams(useAddressSearch(), usePageHostname(), config)
  const { view } = params
  const SecondFactorSteps = useContext(SecondFactorStepsContext)
  const flows = useSignInFlows(params, config, formState)
  const { page, google, sso, passkeys, secondFactor, emailCode } = flows
  const lastUsed = useLastUsedMethod()
  // Latched: the completion takes the return's parameters out of the address bar, and must stay to see its call through.
  const [returned] = useState(params.ssoReturn !== null || params.socialReturn !== null)
  const [discovered, setDiscovered] = useState<SsoDiscovered | null>(null)
  // After hydration (the server rendered the form), with what may be a token cookie (the chunk reads it): the signed-in state's chunk says whether it
  // shows (client/sessions/SignedIn.tsx); the form stays until then, and where the chunk cannot load
  // (no retry through loadChunk: the form is the right fallback, and the bytes are the first load's).
  const [SignedIn, setSignedIn] = useState<SignedInComponent | null>(null)
  useEffect(() => {
    if (view === 'login' && document.cookie.includes('auth=')) {
      import('./sessions/SignedIn.js').then((chunk) => chunk.forThisPage(params.redirect, config)).then((shown) => { if (shown !== null) setSignedIn(() => shown) }, () => {})
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, as the page opens
  }, [])
  // A second-factor step, a passkey offer, the breached-password notice (the last before leaving, in place of any other) or the signed-in state takes the card, with a heading of its own.
  const stepShown = secondFactor.step !== null || emailCode.step !== null || passkeys.offer !== null || page.breachNotice || SignedIn !== null || view === 'account'

  const form = { busy: flows.busy, invalid: page.invalid, localMode: page.localMode, onShowView: page.changeView }
  const email = { value: page.email, onChange: page.setEmail }
  // The emailed code where the service answers its calls and login_method allows it (local-network mode allows only the password).
  const emailCodeOffered = config.emailCodes && params.loginMethods.has('email-code')
  const methods = (intent: 'login' | 'register'): SignInMethods => ({
    password: params.loginMethods.has('password'),
    google: google.offered,
    googleReady: google.ready,
    sso: sso.offered,
    onGoogle: () => google.start(intent),
    onSso: sso.openModal,
    emailCode: emailCodeOffered,
    passkeySignUp: intent === 'register' && emailCodeOffered && passkeys.offered,
    onEmailCode: (passkey) => { page.clearNotice(); emailCode.start(intent === 'register', passkey) },
    lastUsed: lastUsed.method,
    onForgetLastUsed: lastUsed.forget,
    social: config.socialProviders.length === 0 || page.localMode ? null : { providers: config.socialProviders, page },
    discovery: discovered && { ...discovered, start: () => sso.submit(page.email), starting: sso.submitting, busy: flows.busy, notice: sso.notice }
  })

  return (
    <div className='page'>
      <div className='page__columns'>
        <header className='brand'>
          <p className='brand__name'>{config.productName}</p>
          <p className='brand__tagline'>{text('page.tagline', { product: config.productName })}</p>
        </header>
        <main className='card'>
          {config.logo !== null && (
            <img className='card__logo' src={config.logo.src} alt={config.logo.alt} width={config.logo.width} height={config.logo.height} />
          )}
          {page.breachNotice && <LazyPart fallback={<Spinner />}><BreachedPasswordNotice email={page.email} onContinue={page.leaveToRedirect} /></LazyPart>}
          {passkeys.offer !== null && !page.breachNotice && <LazyPart fallback={<Spinner />}><PasskeyOffer {...passkeys.offer} /></LazyPart>}
          {secondFactor.step !== null && !page.breachNotice && (
            <LazyPart fallback={<Spinner />}>
              <SecondFactorSteps flow={secondFactor} page={page} rememberOffered={config.secondFactorRememberBrowser} productName={config.productName} />
            </LazyPart>
          )}
          {emailCode.step !== null && !page.breachNotice && (
            <LazyPart fallback={<Spinner />}>
              <emailCodeParts.EmailCodeSteps flow={emailCode} page={page} gate={flows.gate} onSecondFactor={secondFactor.begin} />
            </LazyPart>
          )}
          {SignedIn !== null && <SignedIn config={config} onEnd={(notice) => { setSignedIn(null); page.succeed(notice) }} />}
          {/* The key named as the edge names it (server/edge/page/page.ts); HEADING_KEYS lists them, out of the first load. */}
          {!stepShown && <h1 className='card__title'>{text(`heading.${view}` satisfies MessageKey)}</h1>}
          {view === 'login' && params.banner !== null && !stepShown && <p className='banner'>{params.banner}</p>}
          <Notice id={FORM_NOTICE_ID} notice={flows.notice} />
          {/* The modal is a portal on the body; here, in the card, is where its chunk's failure shows. */}
          {sso.modalOpen && (
            <LazyPart fallback={null}>
              <SsoModal initialEmail={page.email} intent={view === 'register' ? 'register' : 'login'} busy={flows.busy} sso={sso} />
            </LazyPart>
          )}
          {view === 'login' && !stepShown && (
            <LazyPart fallback={<Spinner />}>
              <viewParts.login form={form} email={email} methods={methods('login')} submission={flows.login} verificationLink={flows.verificationLink}
                supportEmail={config.supportEmail} passkey={{
                  offered: passkeys.offered,
                  signingIn: passkeys.signingIn,
                  onStart: () => { void passkeys.startModal() },
                  onPasswordTyped: passkeys.onPasswordTyped
                }} />
            </LazyPart>
          )}
          {view === 'register' && !stepShown && (
            <LazyPart fallback={<Spinner />}>
              <viewParts.register form={form} email={email} methods={methods('register')} page={page} passwordMinLength={config.passwordMinLength} />
            </LazyPart>
          )}
          {view === 'resetPassword' && <LazyPart fallback={<Spinner />}><viewParts.resetPassword form={form} email={email} page={page} /></LazyPart>}
          {view === 'account' && (
            <LazyPart>
              <viewParts.account config={config} page={page} />
            </LazyPart>
          )}
          {view === 'setPassword' && (
            <LazyPart fallback={<Spinner />}>
              <viewParts.setPassword form={form} page={page} passwordMinLength={config.passwordMinLength} />
            </LazyPart>
          )}
          {config.ssoDiscovery && !page.localMode && (view === 'login' || view === 'register') && <LazyPart fallback={null}><discoveryParts.SsoDiscoveryWatch email={page.email} onAnswer={setDiscovered} /></LazyPart>}
          {returned && <LazyPart fallback={null}><returnParts.ReturnCompletion page={page} onRunning={flows.onCompleting} onSecondFactor={secondFactor.begin} /></LazyPart>}
          <div ref={google.hiddenButtonRef} className='google-button-host' inert />
        </main>
      </div>
      {/* After the form in the DOM, so that the email field is the first stop for Tab; CSS puts it behind. */}
      <BackgroundVideo background={config.background} />
    </div>
  )
}
