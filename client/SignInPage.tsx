import { useEffect, useRef, useState } from 'react'
import type { LoginAnswer, SuccessAnswer } from './api/answers.js'
import type { LoginContextFields, RegisterPayload } from './api/accounts.js'
import { Notice, type NoticeContent } from './components/Notice.js'
import { openGate, useDomainCheck } from './hooks/useDomainCheck.js'
import { useGoogleLogin, type GoogleOutcome } from './hooks/useGoogleLogin.js'
import { useLogin } from './hooks/useLogin.js'
import { useRegister } from './hooks/useRegister.js'
import { useResetPassword } from './hooks/useResetPassword.js'
import { useSetPassword } from './hooks/useSetPassword.js'
import { useSsoCompletion, type SsoCompletion } from './hooks/useSsoCompletion.js'
import { useSsoStart } from './hooks/useSsoStart.js'
import { showView, updateSearchParams, useAddressSearch } from './lib/address-bar.js'
import { googleSignInAvailable, useGoogleIdentity } from './lib/google-identity-services.js'
import { ERROR_MESSAGES, SUCCESS_MESSAGES } from './lib/messages.js'
import { parsePageParams, type View } from './lib/page-params.js'
import { safeRedirectTarget } from './lib/redirect-target.js'
import type { RuntimeConfig } from '../common/runtime-config.js'
import { storeSessionTokens } from './lib/session-cookies.js'
import { layoutFor, useWindowWidth } from './lib/window-width.js'
import { BackgroundVideo } from './views/BackgroundVideo.js'
import { LoginView } from './views/LoginView.js'
import { RegisterView } from './views/RegisterView.js'
import { ResetPasswordView } from './views/ResetPasswordView.js'
import { SetPasswordView } from './views/SetPasswordView.js'
import { SsoModal } from './views/SsoModal.js'

const NOTICE_ID = 'form-notice'

const HEADINGS: Record<View, string> = {
  login: 'Log in',
  register: 'Create your account',
  resetPassword: 'Reset your password',
  setPassword: 'Choose a new password'
}

/**
 * The sign-in page: one view of three (four with password reset completion),
 * chosen by the address bar. This component holds the page's state and runs
 * the flows; the views only render.
 */
export function SignInPage ({ config }: { config: RuntimeConfig }) {
  const search = useAddressSearch()
  const hostname = window.location.hostname
  const params = parsePageParams(search, hostname, config)
  const { view, loginMethods, localAccounts } = params
  const localMode = localAccounts.kind !== 'off'
  const layout = layoutFor(useWindowWidth())

  const [email, setEmail] = useState(() => params.ssoReturn?.email ?? '')
  const [notice, setNotice] = useState<NoticeContent | null>(() => {
    if (params.errorMessage !== null) return { kind: 'error', text: params.errorMessage }
    if (localAccounts.kind === 'refused') return { kind: 'error', text: localAccounts.reason }
    return null
  })
  const [invalid, setInvalid] = useState(false)
  const [ssoModalOpen, setSsoModalOpen] = useState(false)
  const [ssoNotice, setSsoNotice] = useState<NoticeContent | null>(null)
  /** Set once the page is on its way elsewhere: everything stays disabled. */
  const [leaving, setLeaving] = useState(false)

  const domainCheck = useDomainCheck(config.domainCheckTimeoutMs)
  const gate = params.domainCheck ? domainCheck.gate : openGate
  const login = useLogin(gate)
  const register = useRegister()
  const resetPassword = useResetPassword()
  const setPassword = useSetPassword()
  const google = useGoogleLogin(gate)
  const ssoStart = useSsoStart(gate)
  const ssoCompletion = useSsoCompletion()
  const busy = leaving || login.isMutating || register.isMutating || resetPassword.isMutating || setPassword.isMutating ||
    google.isMutating || ssoStart.isMutating || ssoCompletion.isMutating

  const context: LoginContextFields = {
    insecure_allowed_orgs: params.allowedOrgs,
    resource_type: params.resourceType,
    cluster_name: params.clusterName
  }

  const googleIntent = useRef<'login' | 'register'>('login')
  const googleOffered = !localMode && loginMethods.has('google') &&
    googleSignInAvailable(config.googleClientId, config.googleDisabledHostnames, hostname)
  const googleIdentity = useGoogleIdentity(googleOffered ? config.googleClientId : null, (credential) => {
    const intent = googleIntent.current
    if (credential === null) {
      fail(intent === 'login' ? ERROR_MESSAGES.GOOGLE_LOGIN_FAILED : ERROR_MESSAGES.GOOGLE_REGISTER_FAILED)
      return
    }
    void google.trigger({ credential, intent, context }, { onSuccess: finishGoogle })
  })

  function fail (text: string): void {
    setNotice({ kind: 'error', text })
    setInvalid(true)
  }

  function succeed (text: string): void {
    setNotice({ kind: 'success', text })
    setInvalid(false)
  }

  /** After a login: store the tokens and go to the redirect target, else say why not. */
  function finishLogin (answer: LoginAnswer, unreadableMessage: string = ERROR_MESSAGES.GENERIC): void {
    if (answer.kind !== 'tokens') {
      fail(answer.kind === 'error' ? answer.message : unreadableMessage)
      return
    }
    setLeaving(true)
    storeSessionTokens(answer, hostname, config.cookieDomain)
    window.location.assign(safeRedirectTarget(params.redirect, window.location, {
      cookieDomain: config.cookieDomain,
      allowedHosts: config.redirectAllowedHosts
    }))
  }

  /** After a registration-type call: back to the login view with the success text. */
  function finishWithSuccess (answer: SuccessAnswer, defaultText: string, unreadableMessage: string = ERROR_MESSAGES.GENERIC): void {
    if (answer.kind !== 'success') {
      fail(answer.kind === 'error' ? answer.message : unreadableMessage)
      return
    }
    succeed(answer.message === '' ? defaultText : answer.message)
    showView('login')
  }

  function finishGoogle (outcome: GoogleOutcome): void {
    if (outcome.intent === 'login') finishLogin(outcome.answer, ERROR_MESSAGES.GOOGLE_LOGIN_FAILED)
    else finishWithSuccess(outcome.answer, SUCCESS_MESSAGES.REGISTERED, ERROR_MESSAGES.GOOGLE_REGISTER_FAILED)
  }

  function finishSsoCompletion (completion: SsoCompletion): void {
    if (completion.intent === 'login') finishLogin(completion.answer)
    else finishWithSuccess(completion.answer, SUCCESS_MESSAGES.REGISTERED)
  }

  // The return leg of single sign-on completes by itself, once, when the page opens.
  const ssoReturnHandled = useRef(false)
  useEffect(() => {
    const ssoReturn = params.ssoReturn
    if (ssoReturn === null || ssoReturnHandled.current) return
    ssoReturnHandled.current = true
    updateSearchParams((query) => {
      for (const name of ['id', 'email', 'saml', 'oidc', 'login', 'register']) query.delete(name)
    }, { replace: true })
    void ssoCompletion.trigger({ ssoReturn, context }, { onSuccess: finishSsoCompletion })
  })

  function changeView (next: View): void {
    setNotice(null)
    setInvalid(false)
    showView(next)
  }

  function submitLogin (password: string): void {
    if (localAccounts.kind === 'refused') {
      fail(localAccounts.reason)
      return
    }
    void login.trigger({
      payload: { email, password, ...context },
      localAuthenticateUrl: localAccounts.kind === 'allowed' ? localAccounts.authenticateUrl : null
    }, { onSuccess: (answer) => finishLogin(answer) })
  }

  function submitRegistration (payload: RegisterPayload): void {
    if (localMode) {
      fail(ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED)
      return
    }
    void register.trigger(payload, {
      onSuccess: (answer) => {
        finishWithSuccess(answer, SUCCESS_MESSAGES.REGISTERED)
        if (answer.kind === 'success') setEmail(payload.email)
      }
    })
  }

  function submitResetRequest (): void {
    if (localMode) {
      fail(ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED)
      return
    }
    void resetPassword.trigger({ email }, { onSuccess: (answer) => finishWithSuccess(answer, SUCCESS_MESSAGES.RESET_REQUESTED) })
  }

  function submitNewPassword (password: string, confirmation: string): void {
    void setPassword.trigger({ token: params.resetToken ?? '', password, confirm_password: confirmation }, {
      onSuccess: (answer) => {
        finishWithSuccess(answer, SUCCESS_MESSAGES.PASSWORD_SET)
        if (answer.kind === 'success') updateSearchParams((query) => query.delete('token'), { replace: true })
      }
    })
  }

  function startGoogle (intent: 'login' | 'register'): void {
    googleIntent.current = intent
    setNotice(null)
    googleIdentity.start()
  }

  function submitSso (ssoEmail: string): void {
    setSsoNotice(null)
    void ssoStart.trigger({ email: ssoEmail, source: view === 'register' ? 'register' : 'login', redirect: params.redirect, ...context }, {
      onSuccess: (answer) => {
        if (answer.kind === 'redirect') {
          setLeaving(true)
          window.location.assign(answer.url)
        } else {
          setSsoNotice({ kind: 'error', text: answer.kind === 'error' ? answer.message : ERROR_MESSAGES.GENERIC })
        }
      }
    })
  }

  function closeSsoModal (): void {
    ssoStart.reset()
    setSsoNotice(null)
    setSsoModalOpen(false)
  }

  const showPasswordForm = loginMethods.has('password')
  const methods = (intent: 'login' | 'register') => ({
    showGoogle: googleOffered,
    showSso: !localMode && loginMethods.has('sso'),
    showDivider: showPasswordForm,
    googleReady: googleIdentity.ready,
    onGoogle: () => startGoogle(intent),
    onSso: () => setSsoModalOpen(true)
  })
  const submitting = {
    login: login.isMutating || google.isMutating || ssoCompletion.isMutating,
    register: register.isMutating,
    reset: resetPassword.isMutating,
    setPassword: setPassword.isMutating
  }

  return (
    <div className='page' data-layout={layout}>
      <div className='page__columns'>
        <header className='brand'>
          <p className='brand__name'>{config.productName}</p>
          <p className='brand__tagline'>Sign in to continue to {config.productName}.</p>
        </header>
        <main className='card'>
          <h1 className='card__title'>{HEADINGS[view]}</h1>
          {view === 'login' && params.banner !== null && <p className='banner'>{params.banner}</p>}
          <Notice id={NOTICE_ID} notice={busy && notice?.kind === 'error' ? null : notice} />
          {view === 'login' && (
            <LoginView email={email} onEmailChange={setEmail} showPasswordForm={showPasswordForm} methods={methods('login')}
              busy={busy} submitting={submitting.login} invalid={invalid} noticeId={NOTICE_ID} localMode={localMode}
              supportEmail={config.supportEmail} onSubmit={submitLogin} onShowView={changeView} />
          )}
          {view === 'register' && (
            <RegisterView email={email} onEmailChange={setEmail} showPasswordForm={showPasswordForm} methods={methods('register')}
              busy={busy} submitting={submitting.register} invalid={invalid} noticeId={NOTICE_ID} localMode={localMode}
              onSubmit={submitRegistration} onShowView={changeView} />
          )}
          {view === 'resetPassword' && (
            <ResetPasswordView email={email} onEmailChange={setEmail} busy={busy} submitting={submitting.reset} invalid={invalid}
              noticeId={NOTICE_ID} localMode={localMode} onSubmit={submitResetRequest} onShowView={changeView} />
          )}
          {view === 'setPassword' && (
            <SetPasswordView busy={busy} submitting={submitting.setPassword} invalid={invalid} noticeId={NOTICE_ID}
              onSubmit={submitNewPassword} onShowView={changeView} />
          )}
          <div ref={googleIdentity.hiddenButtonRef} className='google-button-host' inert />
        </main>
      </div>
      {/* After the form in the DOM, so that the email field is the first stop for Tab; CSS puts it behind. */}
      <BackgroundVideo mobile={layout === 'narrow'} />
      {ssoModalOpen && (
        <SsoModal initialEmail={email} verb={view === 'register' ? 'Sign up' : 'Login'} busy={busy}
          submitting={ssoStart.isMutating} notice={ssoNotice} onSubmit={submitSso} onCancel={closeSsoModal} />
      )}
    </div>
  )
}
