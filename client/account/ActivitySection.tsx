import { useId } from 'react'
import type { AccountEvent, AccountEventKind } from '../../common/account/account-state.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import type { SocialProvider } from '../../common/social/social-providers.js'
import { useMessages } from '../languages/messages.js'
import { AccountSection } from './AccountSection.js'
import { useAccountTimes } from './account-times.js'
import { useMethodName } from './SessionsSection.js'

/** Each kind of `activity/list`'s events, in words. */
const KIND_KEYS: Readonly<Record<AccountEventKind, MessageKey>> = {
  'sign-in': 'account.activity.signIn',
  'sign-in-failed': 'account.activity.signInFailed',
  'password-changed': 'account.activity.passwordChanged',
  'email-changed': 'account.activity.emailChanged',
  'passkey-added': 'account.activity.passkeyAdded',
  'passkey-removed': 'account.activity.passkeyRemoved',
  'second-factor-on': 'account.activity.secondFactorOn',
  'second-factor-off': 'account.activity.secondFactorOff',
  'recovery-codes-renewed': 'account.activity.recoveryCodesRenewed',
  'sessions-ended': 'account.activity.sessionsEnded',
  'social-linked': 'account.activity.socialLinked',
  'social-unlinked': 'account.activity.socialUnlinked'
}

/**
 * "Recent security activity": the last 30 days of sign-ins and changes,
 * newest first (`activity/list`), each with when, what, how, which
 * browser, from which network. Read only: it renders the same without scripts.
 */
export function ActivitySection ({ events, providers }: { events: readonly AccountEvent[] | null, providers: readonly SocialProvider[] }) {
  const { text } = useMessages()
  const id = useId()
  const time = useAccountTimes()
  const method = useMethodName(providers)
  return (
    <AccountSection id={id} title={text('account.activity.heading')}>
      <p>{text('account.activity.explanation')}</p>
      {events === null && <p>{text('account.listUnavailable')}</p>}
      {events?.length === 0 && <p>{text('account.activity.none')}</p>}
      {events !== null && events.length > 0 && (
        <ul className='recent-factors'>
          {events.map((event, index) => (
            <li key={index}>
              <p><strong>{text(KIND_KEYS[event.kind])}</strong> · {time(event.at)}</p>
              <p>{[event.method === null ? null : method(event.method), event.browser, event.addressRange].filter((part) => part !== null && part !== '').join(' · ')}</p>
            </li>
          ))}
        </ul>
      )}
    </AccountSection>
  )
}
