import { Component, Suspense, useEffect, useRef, type ReactNode } from 'react'
import { useMessages } from '../languages/messages.js'
import { retryFailedChunks } from '../page/load-chunk.js'
import { Button } from './Button.js'

interface LazyPartProps {
  /** Shown while the chunk loads (nothing when not given). */
  readonly fallback?: ReactNode
  /** Lazy components made with lazyChunk (client/page/load-chunk.ts). */
  readonly children: ReactNode
}

/**
 * A lazily loaded part of the page (docs/page.md, "A part that does not
 * load"): Suspense with its fallback while the chunk loads, and, when it
 * could not be loaded after loadChunk's retries, an alert in its place that
 * says so and offers to try again, rather than a button that does nothing.
 */
export class LazyPart extends Component<LazyPartProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError (): { failed: boolean } {
    return { failed: true }
  }

  override render () {
    return this.state.failed
      ? <LazyPartFailure onRetry={() => { retryFailedChunks(); this.setState({ failed: false }) }} />
      : <Suspense fallback={this.props.fallback}>{this.props.children}</Suspense>
  }
}

/**
 * The failure: a new step, so it takes focus. Its texts are the embedded
 * catalogue's (not later texts): what failed may be the fetch of those.
 */
function LazyPartFailure ({ onRetry }: { onRetry: () => void }) {
  const { text } = useMessages()
  const message = useRef<HTMLParagraphElement>(null)
  useEffect(() => message.current?.focus(), [])
  return (
    <div className='notice notice--error' role='alert'>
      <p ref={message} tabIndex={-1}>{text('lazyPart.failed')}</p>
      <Button variant='secondary' onClick={onRetry}>{text('lazyPart.retry')}</Button>
    </div>
  )
}
