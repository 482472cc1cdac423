import type { RuntimeConfig } from '../common/runtime-config.js'
import { Notice } from './components/Notice.js'
import { useSignInFlows } from './hooks/useSignInFlows.js'
import { useAddressSearch } from './lib/address-bar.js'
import { parsePageParams, type View } from './lib/page-params.js'
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
 * chosen by the address bar. This component holds the layout and the choice
 * of view; the state and the flows live in hooks (useSignInFlows and the
 * hooks it names), and the views only render.
 */
export function SignInPage ({ config }: { config: RuntimeConfig }) {
  const params = parsePageParams(useAddressSearch(), window.location.hostname, config)
  const { view } = params
  const layout = layoutFor(useWindowWidth())
  const flows = useSignInFlows(params, config)
  const { page, busy, google, sso } = flows

  const showPasswordForm = params.loginMethods.has('password')
  const methods = (intent: 'login' | 'register') => ({
    showGoogle: google.offered,
    showSso: sso.offered,
    showDivider: showPasswordForm,
    googleReady: google.ready,
    onGoogle: () => google.start(intent),
    onSso: sso.openModal
  })

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
          <Notice id={NOTICE_ID} notice={flows.notice} />
          {view === 'login' && (
            <LoginView email={page.email} onEmailChange={page.setEmail} showPasswordForm={showPasswordForm} methods={methods('login')}
              busy={busy} submitting={flows.login.submitting} invalid={page.invalid} noticeId={NOTICE_ID} localMode={page.localMode}
              supportEmail={config.supportEmail} onSubmit={flows.login.submit} onShowView={page.changeView} />
          )}
          {view === 'register' && (
            <RegisterView email={page.email} onEmailChange={page.setEmail} showPasswordForm={showPasswordForm} methods={methods('register')}
              busy={busy} submitting={flows.register.submitting} invalid={page.invalid} noticeId={NOTICE_ID} localMode={page.localMode}
              onSubmit={flows.register.submit} onShowView={page.changeView} />
          )}
          {view === 'resetPassword' && (
            <ResetPasswordView email={page.email} onEmailChange={page.setEmail} busy={busy} submitting={flows.resetPassword.submitting}
              invalid={page.invalid} noticeId={NOTICE_ID} localMode={page.localMode} onSubmit={flows.resetPassword.submit} onShowView={page.changeView} />
          )}
          {view === 'setPassword' && (
            <SetPasswordView busy={busy} submitting={flows.setPassword.submitting} invalid={page.invalid} noticeId={NOTICE_ID}
              onSubmit={flows.setPassword.submit} onShowView={page.changeView} />
          )}
          <div ref={google.hiddenButtonRef} className='google-button-host' inert />
        </main>
      </div>
      {/* After the form in the DOM, so that the email field is the first stop for Tab; CSS puts it behind. */}
      <BackgroundVideo mobile={layout === 'narrow'} />
      {sso.modalOpen && (
        <SsoModal initialEmail={page.email} verb={view === 'register' ? 'Sign up' : 'Login'} busy={busy}
          submitting={sso.submitting} notice={sso.notice} onSubmit={sso.submit} onCancel={sso.cancel} />
      )}
    </div>
  )
}
