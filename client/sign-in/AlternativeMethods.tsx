import { Fragment, type ComponentType, type ReactNode } from 'react'
import { Button } from '../components/Button.js'
import { LazyPart } from '../components/LazyPart.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import { useMessages } from '../languages/messages.js'
import type { SignInMethods } from '../page/form-view-props.js'
import { LastUsedTag, type LastUsedMethod } from './last-used-method.js'
import { lazyChunk } from '../page/load-chunk.js'
import type { SocialButtonsProps } from '../social/SocialButtons.js'

/**
 * The social connections' buttons, their logos and texts: a chunk of their own, loaded only where
 * connections are configured (the first load's budget). The server renders them as they are
 * (client/server-render.tsx puts them here), and the page keeps that HTML until the chunk is here.
 */
export const socialParts: { SocialButtons: ComponentType<SocialButtonsProps> } = {
  SocialButtons: lazyChunk(async () => (await import('../social/SocialButtons.js')).withItsTexts())
}

/** "Continue with single sign-on" where SSO_DISCOVERY found it for the address (client/sso/SsoDiscovery.tsx): only then. */
export const SsoOffer = lazyChunk(async () => (await import('../sso/SsoDiscovery.js')).offer())

/** Each button's label per view: whole sentences, since word order differs by language. */
const LABELS: Readonly<Record<'login' | 'register', { readonly google: MessageKey, readonly sso: MessageKey, readonly emailCode: MessageKey }>> = {
  login: { google: 'methods.loginWithGoogle', sso: 'methods.loginWithSso', emailCode: 'methods.emailCode' },
  register: { google: 'methods.signUpWithGoogle', sso: 'methods.signUpWithSso', emailCode: 'methods.signUpWithEmailCode' }
}

/** The "Last used" tag after the button of `method`, where this browser signed in with it last. */
export function LastUsedMark ({ methods, method }: { methods: SignInMethods, method: LastUsedMethod }) {
  return methods.lastUsed === method ? <LazyPart><LastUsedTag onForget={methods.onForgetLastUsed} /></LazyPart> : null
}

/**
 * The 'or' divider and the other ways in, as login_method allows: the
 * emailed code (on the register view also the passkey sign-up), Google, the
 * social connections (client/social/SocialButtons.tsx) and custom SSO; the one this browser used last first, with its tag. Without
 * scripts, a note stands for Google and the passkey, a small form for SSO
 * (SsoFallback) and for the emailed code (EmailCodeFallback).
 */
export function AlternativeMethods ({ intent, busy, methods, email }: { intent: 'login' | 'register', busy: boolean, methods: SignInMethods, email: string }) {
  const { text } = useMessages()
  const ssoLabel = text(LABELS[intent].sso)
  const emailCodeLabel = text(LABELS[intent].emailCode)
  const buttons: Array<[LastUsedMethod | 'passkey-sign-up' | 'social', ReactNode]> = []
  if (methods.emailCode) {
    buttons.push(['email-code', (
      <NeedsScript fallback={(content) => content.emailCodeForm(emailCodeLabel, email)}>
        <Button variant='secondary' disabled={busy} onClick={() => methods.onEmailCode(false)}>{emailCodeLabel}</Button>
      </NeedsScript>
    )])
  }
  if (methods.passkeySignUp) {
    buttons.push(['passkey-sign-up', (
      <NeedsScript fallback={(content) => content.note('passkey')}>
        <Button variant='secondary' disabled={busy} onClick={() => methods.onEmailCode(true)}>{text('methods.signUpWithPasskey')}</Button>
      </NeedsScript>
    )])
  }
  if (methods.google) {
    buttons.push(['google', (
      <NeedsScript fallback={(content) => content.note('google')}>
        <Button variant='secondary' disabled={busy || !methods.googleReady} onClick={methods.onGoogle}>{text(LABELS[intent].google)}</Button>
      </NeedsScript>
    )])
  }
  const { social } = methods
  if (social !== null) buttons.push(['social', <LazyPart><socialParts.SocialButtons intent={intent} busy={busy} methods={{ ...methods, social }} /></LazyPart>])
  if (methods.sso) {
    buttons.push(['sso', (
      <NeedsScript fallback={(content) => content.ssoForm(ssoLabel, email)}>
        <Button variant='secondary' disabled={busy} onClick={methods.onSso}>{ssoLabel}</Button>
      </NeedsScript>
    )])
  }
  if (buttons.length === 0) return null
  // The method used last first (known only after hydration, so the server's order is the first render's).
  // The social buttons as one: the chunk puts the one used last first among them.
  const first = (method: string): number => Number(method === methods.lastUsed || (method === 'social' && methods.lastUsed?.startsWith('social:') === true))
  buttons.sort(([a], [b]) => first(b) - first(a))
  return (
    <>
      {methods.password && <div className='divider' role='separator'><span>{text('methods.or')}</span></div>}
      <div className='methods'>
        {buttons.map(([method, button]) => (
          <Fragment key={method}>{button}{method !== 'passkey-sign-up' && method !== 'social' && <LastUsedMark methods={methods} method={method} />}</Fragment>
        ))}
      </div>
    </>
  )
}
