import { useEffect, useId, useRef, useState } from 'react'
import type { LinkedSocialProvider, SocialProvider } from '../../common/social/social-providers.js'
import { SOCIAL_LINK_RETURN_PARAMETER } from '../../common/social/social-providers.js'
import { Button } from '../components/Button.js'
import { useMessages } from '../languages/messages.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import { updateSearchParams } from '../page/address-bar.js'
import { AccountSection, ChangeResult, ProofInPlace } from './AccountSection.js'
import { useAccountTimes } from './account-times.js'
import { completeLink, linkedProviders, startLink, unlink } from './social-link-calls.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

interface SocialSectionProps {
  readonly session: AccountSession
  /** The configured connections (RuntimeConfig.socialProviders): their names. */
  readonly providers: readonly SocialProvider[]
  /** `account/overview`'s `social`: every connection, linked or not, in the operator's order. */
  readonly linked: readonly LinkedSocialProvider[]
  readonly onChange: (linked: readonly LinkedSocialProvider[]) => void
}

/** The return from a provider after Connect (`?view=account&social_link=<id>&id=<single use>`), read once as the view opens. */
function linkReturn (): { readonly provider: string, readonly id: string } | null {
  const query = new URLSearchParams(window.location.search)
  const provider = query.get(SOCIAL_LINK_RETURN_PARAMETER)
  const id = query.get('id')
  return provider === null || provider === '' || id === null || id === '' ? null : { provider, id }
}

/**
 * "Sign-in methods": each social connection, linked (with the address the
 * provider vouched for, and since when) with Disconnect, or not, with
 * Connect. Both after "Confirm it's you" where the service asks (the view's
 * fresh proof). Connect leaves for the provider; its return completes here
 * by itself (`account/social/link`). A disconnect that would leave no way in
 * is refused, and the section says so.
 */
export function SocialSection ({ session, providers, linked, onChange }: SocialSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const time = useAccountTimes()
  const [done, setDone] = useState<string | null>(null)
  const [returnError, setReturnError] = useState<string | null>(null)
  const nameOf = (provider: string): string => providers.find((candidate) => candidate.id === provider)?.name ?? provider

  const connect = useAccountChange('social-link-start', session, startLink, (answer) => { if (answer.kind === 'redirect') window.location.assign(answer.url) })
  const disconnect = useAccountChange('social-unlink', session, async (auth, provider: string) => {
    const answer = await unlink(auth, provider)
    return answer.kind === 'last-way-in' ? { kind: 'error', message: text('account.social.lastWayIn', { provider: nameOf(provider) }) } as const : answer
  }, (answer, provider) => {
    onChange(linked.map((entry) => entry.provider === provider ? { ...entry, email: null, linkedAt: null } : entry))
    setDone(text('account.social.disconnected', { provider: nameOf(provider) }))
  })
  const busy = connect.running || disconnect.running
  const proving = [connect, disconnect].find((change) => change.proof.ways !== null)?.proof

  // An effect, not a handler: the return from the provider completes by itself, once, as the view opens.
  const handled = useRef(false)
  useEffect(() => {
    const returned = linkReturn()
    if (returned === null || handled.current) return
    handled.current = true
    // The id works once: out of the address bar before it is sent.
    updateSearchParams((query) => { query.delete(SOCIAL_LINK_RETURN_PARAMETER); query.delete('id') }, { replace: true })
    void (async () => {
      const auth = await session.token()
      const answer = auth === null ? null : await completeLink(auth, returned.id)
      if (answer?.kind !== 'success') {
        setReturnError(answer?.kind === 'error' ? answer.message : text('error.GENERIC'))
        return
      }
      const now = await linkedProviders(auth!)
      onChange(now ?? linked.map((entry) => entry.provider === returned.provider ? { ...entry, linkedAt: Date.now() } : entry))
      setDone(text('account.social.connected', { provider: nameOf(returned.provider) }))
    })()
  })

  return (
    <AccountSection id={id} title={text('account.social.heading')}>
      <p>{text('account.social.explanation')}</p>
      <ChangeResult done={done} error={returnError ?? connect.error ?? disconnect.error} />
      <ProofInPlace proof={proving}>
        <ul className='recent-factors'>
          {linked.map((entry, index) => {
            const name = nameOf(entry.provider)
            return (
              <li key={entry.provider} aria-labelledby={`${id}-${index}`}>
                <p><strong id={`${id}-${index}`}>{name}</strong></p>
                <p>{entry.linkedAt === null
                  ? text('account.social.notLinked')
                  : text('account.social.linked', { email: entry.email ?? '', time: time(entry.linkedAt) })}</p>
                <NeedsScript fallback={() => <p className='script-note'>{text('account.needsScript')}</p>}>
                  {entry.linkedAt === null
                    ? <Button variant='secondary' busy={connect.running} disabled={busy} onClick={() => { setDone(null); setReturnError(null); connect.run(entry.provider) }}>{text('account.social.connect', { provider: name })}</Button>
                    : <Button variant='secondary' busy={disconnect.running} disabled={busy} onClick={() => { setDone(null); setReturnError(null); disconnect.run(entry.provider) }}>{text('account.social.disconnect', { provider: name })}</Button>}
                </NeedsScript>
              </li>
            )
          })}
        </ul>
      </ProofInPlace>
    </AccountSection>
  )
}
