import { useEffect, useRef, useState } from 'react'
import { COPY_FEEDBACK_MS } from './constants.js'
import { useMessages } from '../languages/messages.js'
import { Tooltip } from './Tooltip.js'

interface CopyButtonProps {
  readonly text: string
  readonly label: string
}

/** Copies `text` to the clipboard and says so in a tooltip for one second. */
export function CopyButton ({ text, label }: CopyButtonProps) {
  const messages = useMessages()
  const [feedback, setFeedback] = useState<string | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  async function copy (): Promise<void> {
    let message = messages.text('copy.copied')
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      message = messages.text('copy.failed')
    }
    setFeedback(message)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => setFeedback(null), COPY_FEEDBACK_MS)
  }

  return (
    <Tooltip content={feedback ?? label} open={feedback === null ? undefined : true}>
      <button type='button' className='copy-button' aria-label={label} onClick={() => { void copy() }}>
        <svg aria-hidden='true' width='16' height='16' viewBox='0 0 16 16' fill='none' stroke='currentColor' strokeWidth='1.5'>
          <rect x='5.5' y='5.5' width='8' height='8' rx='1.5' />
          <path d='M10.5 3.5v-1a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h1' />
        </svg>
        <span className='visually-hidden' aria-live='polite'>{feedback ?? ''}</span>
      </button>
    </Tooltip>
  )
}
