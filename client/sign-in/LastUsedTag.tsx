import type { ComponentType } from 'react'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'

export interface LastUsedTagProps {
  readonly onForget: () => void
}

/**
 * "Last used", beside the button of the method this browser signed in with
 * last, and a button that forgets it (last-used-method.ts). A chunk of its
 * own: it shows only after hydration, so its bytes and texts are not the
 * first load's.
 */
function LastUsedTag ({ onForget }: LastUsedTagProps) {
  const { text } = useMessages()
  return (
    <span className='last-used'>
      <span className='last-used__mark'>{text('lastUsed.mark')}</span>
      <button type='button' className='last-used__forget' aria-label={text('lastUsed.forget')} title={text('lastUsed.forget')} onClick={onForget}>
        <span aria-hidden='true'>×</span>
      </button>
    </span>
  )
}

/** The tag as last-used-method.ts loads it (React.lazy), with its texts. */
export const withItsTexts = async (): Promise<{ default: ComponentType<LastUsedTagProps> }> => withLaterPageTexts(LastUsedTag)
