import { useEffect, useRef, useState, type ComponentType } from 'react'
import { parseRecentFactorsReview, RECENT_FACTORS_DAYS, type RecentFactorsReview } from '../../common/account-changes/recent-factors.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Button } from '../components/Button.js'
import { useRecentFactors, type RecentFactor } from './useRecentFactors.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { STEP_NOTICE_ID } from '../page/form-view-props.js'

export interface RecentFactorsProps {
  /** The reset's answer, with `recent_factors` and `review_token`. */
  readonly answer: Readonly<Record<string, unknown>>
}

/**
 * The set-password view once done, when the reset's answer listed what was
 * added to the account in the last 30 days (docs/account-changes.md): each
 * passkey and the authenticator app with a Remove button. The heading takes
 * the focus, as the form it replaces had it; a removal is said in a live
 * region and the focus moves to the next item's button (the heading when
 * none is left), never lost with the button that went.
 */
export function RecentFactors ({ answer }: RecentFactorsProps) {
  const [review] = useState(() => parseRecentFactorsReview(answer))
  // An answer the page cannot read lists nothing: the password is set all the same.
  return review === null ? null : <RecentFactorsList review={review} />
}

function RecentFactorsList ({ review }: { readonly review: RecentFactorsReview }) {
  const messages = useMessages()
  const { text } = messages
  const flow = useRecentFactors(review)
  const heading = useRef<HTMLHeadingElement>(null)
  const buttons = useRef(new Map<string, HTMLButtonElement>())
  const [dates] = useState(() => new Intl.DateTimeFormat(messages.locale, { dateStyle: 'long' }))
  useEffect(() => heading.current?.focus(), [])
  // Focus follows a removal once the list has re-rendered without the item.
  useEffect(() => {
    if (flow.outcome?.kind === 'removed') (flow.outcome.focus === null ? heading.current : buttons.current.get(flow.outcome.focus))?.focus()
  }, [flow.outcome])

  const label = (item: RecentFactor): string => {
    const date = dates.format(new Date(item.at))
    return item.kind === 'passkey' ? text('recentFactors.passkey', { name: item.name, date }) : text('recentFactors.secondFactor', { date })
  }
  const removeLabel = (item: RecentFactor): string =>
    item.kind === 'passkey' ? text('recentFactors.removePasskey', { name: item.name }) : text('recentFactors.removeSecondFactor')
  const removedText = (item: RecentFactor): string =>
    item.kind === 'passkey' ? text('recentFactors.removedPasskey', { name: item.name }) : text('recentFactors.removedSecondFactor')
  const { outcome } = flow

  return (
    <section className='form' aria-labelledby='recent-factors-heading'>
      <h2 id='recent-factors-heading' className='card__title' tabIndex={-1} ref={heading}>{text('recentFactors.heading', { days: RECENT_FACTORS_DAYS })}</h2>
      <p>{text('recentFactors.explanation')}</p>
      <ul className='recent-factors'>
        {flow.items.map((item) => (
          <li key={item.key}>
            <span>{label(item)}</span>
            <Button variant='secondary' aria-label={removeLabel(item)} disabled={flow.removing} onClick={() => flow.remove(item)}
              ref={(button) => { if (button === null) buttons.current.delete(item.key); else buttons.current.set(item.key, button) }}>
              {text('recentFactors.remove')}
            </Button>
          </li>
        ))}
      </ul>
      {flow.items.length === 0 && <p>{text('recentFactors.noneLeft')}</p>}
      <div id={STEP_NOTICE_ID} role='status'>
        {outcome?.kind === 'removed' && <p className='notice notice--success'>{removedText(outcome.item)}</p>}
      </div>
      {outcome?.kind === 'refused' && (
        <p className='notice notice--error' role='alert'>
          {outcome.refusal.kind === 'error' ? refusalText(outcome.refusal, messages) : text(ERROR_MESSAGE_KEYS.GENERIC)}
        </p>
      )}
    </section>
  )
}

/** The list as SetPasswordView loads it (React.lazy), with its texts (later texts: common/languages/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<RecentFactorsProps> }> => withLaterPageTexts(RecentFactors)
